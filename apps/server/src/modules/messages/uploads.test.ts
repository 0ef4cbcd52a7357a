import { MESSAGE_STRINGS, planLimitWords, storageLimit, UPLOAD_MAX_MB } from '@parley/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type Call, signUpVia } from '../../testing/api.js';
import { dialects, startTestServer } from '../../testing/support.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;
const MB = 1024 * 1024;

describe.each(dialects)('upload limits (%s)', (dialect) => {
  let s: Server;
  let call: Call;
  const db = () => s.handle.db;

  beforeAll(async () => {
    s = await startTestServer(dialect);
    call = apiClient(s.url);
  });
  afterAll(async () => {
    await s?.stop();
  });

  const upload = async (token: string, files: { name: string; data: Buffer }[]) => {
    const form = new FormData();
    for (const f of files) form.append('attachment[]', new Blob([new Uint8Array(f.data)]), f.name);
    const res = await fetch(`${s.url}/api/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: form,
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  /** An account on `plan` that already stores `used` bytes (one earlier file's row). */
  const accountUsing = async (plan: number, used: number) => {
    const admin = await signUpVia(call);
    await db().updateTable('accounts').set({ plan }).where('id', '=', admin.accountId).execute();
    if (used > 0)
      await db()
        .insertInto('uploads')
        .values({
          account_id: admin.accountId,
          ticket_id: null,
          user_id: null,
          key: `earlier${admin.accountId}xxxxxxxxxxxx`,
          name: 'earlier.bin',
          mime: 'application/octet-stream',
          size: used,
          thumb_key: null,
          created_at: Date.now(),
        })
        .execute();
    return admin;
  };
  const stored = async (accountId: number) =>
    db().selectFrom('uploads').select(['name', 'size']).where('account_id', '=', accountId).execute();
  const text = (bytes: number) => Buffer.alloc(bytes, 'a');

  it('MSG-37 past the plan\'s storage the upload is 413 "Your plan\'s storage is full." and nothing is stored', async () => {
    const limit = storageLimit(1) ?? 0;
    const admin = await accountUsing(1, limit - 1500);
    const fits = await upload(admin.token, [{ name: 'a.txt', data: text(1000) }]);
    expect(fits.status, JSON.stringify(fits.body)).toBe(200);
    const full = await upload(admin.token, [{ name: 'b.txt', data: text(1000) }]);
    expect(full.status).toBe(413);
    expect(full.body).toMatchObject({
      result: 'failed',
      code: 'PAYLOAD_TOO_LARGE',
      description: planLimitWords('storageBytes', 1, limit),
    });
    // PLAN-24: the words, then the way up from Starter.
    expect(full.body.description).toBe("Your plan's storage is full. Basic allows 3 GB: upgrade on the Plans page.");
    expect(MESSAGE_STRINGS.storageFull).toBe("Your plan's storage is full.");
    expect((await stored(admin.accountId)).map((r) => r.name)).toEqual(['earlier.bin', 'a.txt']);
    // Enterprise (plan 4) has no limit.
    await db().updateTable('accounts').set({ plan: 4 }).where('id', '=', admin.accountId).execute();
    expect((await upload(admin.token, [{ name: 'b.txt', data: text(1000) }])).status).toBe(200);
  });

  it('MSG-37 two uploads at once cannot both take the last room of the plan (no read-then-write race)', async () => {
    const limit = storageLimit(1) ?? 0;
    const admin = await accountUsing(1, limit - 1500);
    // Four at once, room for one: without the lock each reads the same total and all four pass.
    const results = await Promise.all(
      [1, 2, 3, 4].map((i) => upload(admin.token, [{ name: `r${i}.txt`, data: text(1000) }])),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 413, 413, 413]);
    for (const r of results.filter((x) => x.status === 413))
      expect(r.body.description).toBe(planLimitWords('storageBytes', 1, limit));
    const rows = await stored(admin.accountId);
    expect(rows).toHaveLength(2);
    expect(rows.reduce((n, r) => n + Number(r.size), 0)).toBeLessThanOrEqual(limit);
  });

  it('MSG-37 one file may be 25 MB: a byte more is 413 "A file may be at most 25 MB." and nothing is stored', async () => {
    const admin = await accountUsing(2, 0);
    expect(UPLOAD_MAX_MB).toBe(25);
    const over = await upload(admin.token, [{ name: 'big.txt', data: text(25 * MB + 1) }]);
    expect(over.status).toBe(413);
    expect(over.body.description).toBe('A file may be at most 25 MB.');
    expect(await stored(admin.accountId)).toEqual([]);
    const exact = await upload(admin.token, [{ name: 'max.txt', data: text(25 * MB) }]);
    expect(exact.status, JSON.stringify(exact.body)).toBe(200);
    expect(exact.body.size).toEqual([25 * MB]);
  }, 60_000);
});

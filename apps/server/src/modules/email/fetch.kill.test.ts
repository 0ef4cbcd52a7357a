import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { type DbHandle, openDatabase } from '../../platform/db/db.js';
import { apiClient, signUpVia, uniq } from '../../testing/api.js';
import { type Dovecot, hasDovecot, rawMail, startDovecot } from '../../testing/dovecot.js';
import { crashNode, startNode, stopAllNodes } from '../../testing/nodes.js';
import { freshPostgres, redisUrl, tempDir } from '../../testing/support.js';
import { waitFor } from '../../testing/waitFor.js';

/** SQLite always; Postgres with Redis (the production shape) when the run has both. */
const stores = ['sqlite' as const, ...(process.env.TEST_DATABASE_URL && redisUrl ? ['postgres+redis' as const] : [])];

/**
 * Crash safety of the inbound path: the server, a real OS process, is killed with SIGKILL while it fetches
 * 200 mails from a real Dovecot; started again over the same data (and the same NODE_ID, so it holds the dead
 * process's lease at once), it stores the rest: 200 tickets, 200 messages, none twice. On SQLite, and on
 * Postgres with Redis (the relay's wake-ups and the sockets' adapter as in production).
 */
describe.skipIf(!hasDovecot).each(stores)('e-mail in through a SIGKILL (%s)', (store) => {
  let imap: Dovecot | undefined;
  let handle: DbHandle | undefined;
  let drop: () => Promise<void> = async () => {};
  const dataDir = tempDir('parley-mail-kill-');
  afterAll(async () => {
    await stopAllNodes();
    await handle?.db.destroy();
    await imap?.stop();
    await drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('EMAIL 200 mails fetched across a SIGKILL of the server: exactly 200 tickets and messages, none twice', async () => {
    imap = await startDovecot(['kill@example.test']);
    const env: Record<string, string> = { SECRETS_KEY: randomBytes(32).toString('base64'), EMAIL_POLL_MS: '60000' };
    let databaseUrl: string | undefined;
    if (store === 'postgres+redis') {
      const pg = await freshPostgres();
      drop = pg.drop;
      databaseUrl = pg.url;
      Object.assign(env, { DATABASE_URL: pg.url, REDIS_URL: redisUrl! });
    }
    let node = await startNode('mail-kill', env, { dataDir });
    const call = apiClient(node.url);
    const admin = await signUpVia(call);
    const made = await call('POST', '/api/mailboxes', {
      token: admin.token,
      body: {
        address: 'kill@example.test',
        name: 'Kill',
        departmentId: null,
        active: true,
        imap: { host: '127.0.0.1', port: imap.port, tls: false, user: 'kill@example.test', password: imap.password },
        smtp: { host: '127.0.0.1', port: 25, tls: false, user: 'kill@example.test', password: '' },
      },
    });
    expect(made.status, made.text).toBe(200);
    handle = openDatabase({ dataDir, databaseUrl });
    const db = handle.db;
    const box = () =>
      db
        .selectFrom('mailboxes')
        .select(['last_uid', 'last_fetch_at'])
        .where('id', '=', made.body.data.id)
        .executeTakeFirst();
    const stored = async () =>
      Number(
        (
          await db
            .selectFrom('email_message_ids')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('account_id', '=', admin.accountId)
            .executeTakeFirstOrThrow()
        ).n,
      );
    await waitFor(async () => (await box())?.last_fetch_at, 'the first fetch', 30_000);

    const sent: string[] = [];
    for (let i = 0; i < 200; i++) {
      const id = `kill-${i}-${uniq()}@customer.example`;
      sent.push(id);
      await imap.append(
        'kill@example.test',
        rawMail({ from: `k${i}@customer.example`, to: 'kill@example.test', subject: `Kill ${i}`, messageId: id }),
      );
    }
    // Killed mid-fetch: some stored, not all.
    let before = 0;
    await waitFor(
      async () => {
        before = await stored();
        return before >= 20;
      },
      () => `20 mails stored before the kill (${before})`,
      30_000,
      5,
    );
    await crashNode(node);
    const atKill = await stored();
    expect(atKill).toBeLessThan(200);

    node = await startNode('mail-kill', env, { port: node.port, dataDir });
    let n = 0;
    await waitFor(
      async () => {
        n = await stored();
        return n >= 200;
      },
      () => `all 200 stored after the restart (${n}, ${atKill} at the kill)`,
      40_000,
    );
    // The fetcher has moved past the last UID: nothing more is on its way.
    await waitFor(async () => Number((await box())?.last_uid) >= 200, 'the last UID counted', 10_000);

    const ids = await db
      .selectFrom('email_message_ids')
      .select(['message_id', 'ticket_id', 'message_row_id'])
      .where('account_id', '=', admin.accountId)
      .execute();
    expect(ids.map((r) => r.message_id).sort()).toEqual([...sent].sort());
    const messages = await db
      .selectFrom('messages')
      .select(['id', 'ticket_id'])
      .where('account_id', '=', admin.accountId)
      .where('sender', '=', 'visitor')
      .execute();
    expect(messages).toHaveLength(200);
    const tickets = await db
      .selectFrom('tickets')
      .select(['id', 'title'])
      .where('account_id', '=', admin.accountId)
      .where('channel', '=', 'EMAIL')
      .execute();
    expect(tickets).toHaveLength(200);
    expect(new Set(tickets.map((t) => t.title)).size).toBe(200);
    expect(new Set(messages.map((m) => Number(m.ticket_id))).size).toBe(200);
  }, 240_000);
});

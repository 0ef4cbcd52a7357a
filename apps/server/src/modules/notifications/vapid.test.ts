import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createParley, type Parley } from '../../app.js';
import { apiClient, signUpVia } from '../../testing/api.js';
import { dialects, freshDatabase, testConfig } from '../../testing/support.js';

describe.each(dialects)('VAPID keys (%s)', (dialect) => {
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;
  let node: Parley | undefined;

  const start = async () => {
    node = await createParley(testConfig(fresh.env), { logger: pino({ level: 'silent' }), background: false });
    return apiClient(`http://127.0.0.1:${await node.listen()}`);
  };
  const publicKey = async (call: Awaited<ReturnType<typeof start>>, token: string) => {
    const r = await call('GET', '/api/fcm/key', { token });
    expect(r.status, r.text).toBe(200);
    expect(r.body.publicKey).toMatch(/^[A-Za-z0-9_-]{87}$/); // 65 bytes, base64url
    return r.body.publicKey as string;
  };

  beforeAll(async () => {
    fresh = await freshDatabase(dialect);
  });
  afterAll(async () => {
    await node?.close();
    await fresh?.drop();
  });

  it('NOTIF-36 the key pair made on the first start is the one served after a restart over the same data', async () => {
    let call = await start();
    const a = await signUpVia(call);
    const first = await publicKey(call, a.token);
    await node!.close();

    call = await start();
    expect(await publicKey(call, a.token)).toBe(first);
    const file = path.join(fresh.env.DATA_DIR!, 'vapid.json');
    if (dialect === 'sqlite') {
      // Kept next to the database, readable by the server's user only (it holds the private key).
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      const kept = JSON.parse(fs.readFileSync(file, 'utf8'));
      expect(kept.publicKey).toBe(first);
      expect(kept.privateKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
    } else {
      // Postgres nodes share no data dir: the pair is a row every node reads, and no file is written.
      const row = await node!.handle.db
        .selectFrom('server_state')
        .select('value')
        .where('name', '=', 'vapid')
        .executeTakeFirstOrThrow();
      expect(JSON.parse(row.value).publicKey).toBe(first);
      expect(fs.existsSync(file)).toBe(false);
    }
  });
});

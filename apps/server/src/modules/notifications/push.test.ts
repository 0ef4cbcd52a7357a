import crypto from 'node:crypto';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createParley, type Parley } from '../../app.js';
import { runCommand } from '../../platform/outbox/index.js';
import { addUserVia, apiClient, type Call, type SignedUp, signUpVia, uniq } from '../../testing/api.js';
import { startPushEndpoint } from '../../testing/pushEndpoint.js';
import { connectSocket, relayed, type TestSocket, waitFor } from '../../testing/sockets.js';
import { dialects, freshDatabase, testConfig } from '../../testing/support.js';
import { notifyUsers } from './index.js';
import { PUSH_ENDPOINT_REFUSED } from './push.js';

describe.each(dialects)('Web Push (%s)', (dialect) => {
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;
  let parley: Parley;
  let push: Awaited<ReturnType<typeof startPushEndpoint>>;
  let call: Call;
  let a: SignedUp;
  let agent: { id: number; token: string };
  const sockets: TestSocket[] = [];
  let url = '';

  const raise = (userId: number, title: string) =>
    runCommand(parley.handle.db, (trx) =>
      notifyUsers(trx, {
        accountId: a.accountId,
        userIds: [userId],
        category: 'sla',
        type: 'violation',
        title,
        body: 'waited too long',
        ticketNumber: 77,
      }),
    );

  beforeAll(async () => {
    push = await startPushEndpoint();
    fresh = await freshDatabase(dialect);
    parley = await createParley(testConfig({ ...fresh.env, PUSH_ALLOWED_HOSTS: push.allowedHost }), {
      logger: pino({ level: 'silent' }),
      pushAgent: push.agent,
    });
    url = `http://127.0.0.1:${await parley.listen()}`;
    call = apiClient(url);
    a = await signUpVia(call);
    agent = await addUserVia(call, a.token, { username: `push-${uniq()}`, type: 'agent' });
  }, 60_000);
  afterAll(async () => {
    for (const s of sockets) s.close();
    await parley?.close();
    await fresh?.drop();
    await push?.close();
  });

  it('NOTIF-35 NOTIF-36 an invalid subscription is refused and nothing is stored', async () => {
    const good = push.subscription('x');
    const bad: unknown[] = [
      'not json',
      '{}',
      { endpoint: 'http://127.0.0.1/push', keys: good.keys },
      { endpoint: good.endpoint, keys: { p256dh: 'short', auth: good.keys.auth } },
      {
        endpoint: good.endpoint,
        keys: { p256dh: good.keys.p256dh, auth: crypto.randomBytes(8).toString('base64url') },
      },
      { endpoint: 'not a url', keys: good.keys },
      { endpoint: good.endpoint },
    ];
    for (const token of bad) {
      const r = await call('POST', '/api/fcm/token', { token: a.token, body: { token, type: 'web', domain: 'x' } });
      expect(r.status, JSON.stringify(token)).toBe(400);
      expect(r.body.description).toBe('The token is not a valid Web Push subscription.');
    }
    const wrongType = await call('POST', '/api/fcm/token', {
      token: a.token,
      body: { token: JSON.stringify(good), type: 'android', domain: 'x' },
    });
    expect(wrongType.status).toBe(400);
    const rows = await parley.handle.db.selectFrom('push_subscriptions').selectAll().execute();
    expect(rows).toHaveLength(0);
  });

  it('NOTIF-35 an endpoint that is not a known push service (or an allowed host) is refused and nothing is stored', async () => {
    const good = push.subscription('x');
    const port = new URL(good.endpoint).port;
    const refused = [
      // Another port of the allowed host; loopback, private and metadata addresses; any other host.
      `https://127.0.0.1:${Number(port) + 1}/push/x`,
      'https://127.0.0.1/push/x',
      `https://localhost:${port}/push/x`,
      `https://[::1]:${port}/push/x`,
      'https://169.254.169.254/latest/meta-data',
      'https://10.0.0.5/push',
      'https://192.168.1.1:8443/push',
      'https://internal.example.com/push',
      'https://fcm.googleapis.com.evil.example/push',
      // A known service on another port, or with credentials in the address.
      'https://fcm.googleapis.com:8443/fcm/send/x',
      'https://user:secret@fcm.googleapis.com/fcm/send/x',
    ];
    for (const endpoint of refused) {
      const r = await call('POST', '/api/fcm/token', {
        token: a.token,
        body: { token: JSON.stringify({ ...good, endpoint }), type: 'web', domain: 'x' },
      });
      expect(r.status, endpoint).toBe(400);
      expect(r.body).toMatchObject({ result: 'failed', description: PUSH_ENDPOINT_REFUSED });
    }
    expect(await parley.handle.db.selectFrom('push_subscriptions').selectAll().execute()).toHaveLength(0);
    // The browsers' push services are accepted (nothing is sent at registration).
    const accepted = [
      'https://fcm.googleapis.com/fcm/send/abc',
      'https://updates.push.services.mozilla.com/wpush/v2/abc',
      'https://push.services.mozilla.com/wpush/v2/abc',
      'https://web.push.apple.com/QGx',
      'https://wns2-by3p.notify.windows.com/w/?token=abc',
    ];
    for (const endpoint of accepted) {
      const r = await call('POST', '/api/fcm/token', {
        token: a.token,
        body: { token: { ...good, endpoint }, type: 'web', domain: 'x' },
      });
      expect(r.status, endpoint).toBe(200);
    }
    const rows = await parley.handle.db.selectFrom('push_subscriptions').select('endpoint').execute();
    expect(rows.map((r) => r.endpoint).sort()).toEqual([...accepted].sort());
    await parley.handle.db.deleteFrom('push_subscriptions').where('user_id', '=', a.userId).execute();
  });

  it('NOTIF-35 a stored subscription whose endpoint is not allowed (any more) is not sent to', async () => {
    const other = await startPushEndpoint();
    try {
      const sub = other.subscription(`stale-${uniq()}`);
      await parley.handle.db
        .insertInto('push_subscriptions')
        .values({
          account_id: a.accountId,
          user_id: a.userId,
          endpoint: sub.endpoint,
          p256dh: sub.keys.p256dh,
          auth: sub.keys.auth,
          domain: '',
          created_at: Date.now(),
        })
        .execute();
      // The allowed endpoint next to it gets its push: the relay did deliver the notification.
      const allowed = push.subscription(`owner-${uniq()}`);
      expect(
        (await call('POST', '/api/fcm/token', { token: a.token, body: { token: allowed, type: 'web', domain: '' } }))
          .status,
      ).toBe(200);
      await raise(a.userId, 'to both');
      await waitFor(() => push.received.some((x) => allowed.endpoint.endsWith(x.path)), 'the allowed push');
      await relayed(parley.handle.db, a.accountId);
      expect(other.received).toHaveLength(0);
    } finally {
      await other.close();
      await parley.handle.db.deleteFrom('push_subscriptions').where('user_id', '=', a.userId).execute();
    }
  });

  it('NOTIF-35 a subscription is stored, and a notification is pushed encrypted when no tab has focus', async () => {
    const key = await call('GET', '/api/fcm/key', { token: agent.token });
    expect(key.body.publicKey).toMatch(/^[A-Za-z0-9_-]{80,}$/);
    const sub = push.subscription(`agent-${uniq()}`);
    const r = await call('POST', '/api/fcm/token', {
      token: agent.token,
      body: { token: JSON.stringify(sub), type: 'web', domain: 'parley.test' },
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ result: 'success' });
    await raise(agent.id, 'SLA violated: #77');
    const got = (await waitFor(() => push.received.find((x) => sub.endpoint.endsWith(x.path)), 'a push request'))!;
    expect(got.headers['content-encoding']).toBe('aes128gcm');
    expect(String(got.headers.authorization)).toMatch(/^vapid t=.+, k=/);
    // The VAPID JWT is signed by the server's key, for this push service's origin.
    const auth = String(got.headers.authorization);
    const [, jwt, k] = /^vapid t=([^,]+), k=(.+)$/.exec(auth)!;
    expect(k).toBe(key.body.publicKey);
    const [h, p, sig] = jwt!.split('.');
    const claims = JSON.parse(Buffer.from(p!, 'base64url').toString());
    expect(claims.aud).toBe(new URL(sub.endpoint).origin);
    const pub = crypto.createPublicKey({
      key: { kty: 'EC', crv: 'P-256', ...xy(Buffer.from(k!, 'base64url')) },
      format: 'jwk',
    });
    expect(
      crypto.verify(
        'sha256',
        Buffer.from(`${h}.${p}`),
        { key: pub, dsaEncoding: 'ieee-p1363' },
        Buffer.from(sig!, 'base64url'),
      ),
    ).toBe(true);
    const payload = JSON.parse(push.decrypt(got.body));
    expect(payload).toMatchObject({
      title: 'SLA violated: #77',
      body: 'waited too long',
      category: 'sla',
      type: 'violation',
      url: '/ticket?number=77',
    });
  });

  it('NOTIF-35 no push while a tab of the user has focus; a gone subscription is dropped', async () => {
    const before = push.received.length;
    const s = await connectSocket(url, agent.token, sockets);
    s.emit('notificationFocus', true);
    await waitFor(
      async () =>
        (await parley.handle.db.selectFrom('notification_focus').selectAll().where('user_id', '=', agent.id).execute())
          .length === 1,
      'focus row',
    );
    await raise(agent.id, 'while focused');
    await relayed(parley.handle.db, a.accountId);
    expect(push.received.length).toBe(before);
    s.emit('notificationFocus', false);
    await waitFor(
      async () =>
        (
          await parley.handle.db
            .selectFrom('notification_focus')
            .selectAll()
            .where('account_id', '=', a.accountId)
            .where('user_id', '=', agent.id)
            .where('focused', '=', 1)
            .execute()
        ).length === 0,
      'the tab to lose focus',
    );
    await raise(agent.id, 'after blur');
    await waitFor(() => push.received.length === before + 1, 'push after blur');
    // A subscription the push service says is gone (410) is removed.
    const gone = push.subscription(`gone/${uniq()}`);
    await call('POST', '/api/fcm/token', { token: agent.token, body: { token: gone, type: 'web', domain: '' } });
    await raise(agent.id, 'to the gone one');
    await waitFor(
      async () =>
        !(await parley.handle.db
          .selectFrom('push_subscriptions')
          .select('id')
          .where('endpoint', '=', gone.endpoint)
          .executeTakeFirst()),
      'gone subscription dropped',
    );
  });
});

/** x and y of an uncompressed P-256 point, as JWK fields. */
function xy(point: Buffer) {
  return { x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33, 65).toString('base64url') };
}

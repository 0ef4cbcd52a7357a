import { createHmac } from 'node:crypto';
import { API_TOKEN_PREFIX, ErrorCode, INTEGRATION_STRINGS, WEBHOOK_HEADERS } from '@parley/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../platform/auth/tokens.js';
import { addUserVia, apiClient, type Call, type SignedUp, signUpVia, uniq } from '../../testing/api.js';
import { type ManualClock, manualClock } from '../../testing/clock.js';
import { dialects, startTestServer } from '../../testing/support.js';
import { waitFor } from '../../testing/waitFor.js';
import { startWebhookReceiver as startReceiver } from '../../testing/webhookReceiver.js';
import { sendDelivery, WEBHOOK_TRIES } from './delivery.js';

describe.each(dialects)('integrations (%s)', (dialect) => {
  let s: Awaited<ReturnType<typeof startTestServer>>;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  let clock: ManualClock;
  let call: Call;
  let admin: SignedUp;
  let agent: { id: number; token: string };
  const db = () => s.handle.db;

  const makeToken = (token: string, body: Record<string, unknown>) => call('POST', '/api/api_tokens', { token, body });
  const tokenRow = (id: number) =>
    db().selectFrom('api_tokens').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const countRows = async (table: 'api_tokens' | 'webhooks') =>
    Number(
      (
        await db()
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .where('account_id', '=', admin.accountId)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const newTicket = async (token: string, title = `Hook ${uniq()}`) => {
    const r = await call('POST', '/api/ticket/create', { token, body: { title } });
    expect(r.status, r.text).toBe(200);
    return r.body.data.id as number;
  };
  const addHook = async (path: string, events: string[]) => {
    const r = await call('POST', '/api/webhooks', { token: admin.token, body: { url: rx.url(path), events } });
    expect(r.status, r.text).toBe(200);
    return r.body as { data: { id: number }; secret: string };
  };
  const deliveries = async (hookId: number) => {
    const r = await call('GET', `/api/webhooks/${hookId}/deliveries`, { token: admin.token });
    expect(r.status, r.text).toBe(200);
    return r.body.data as { id: number; state: string; attempts: number; statusCode: number | null; error: string }[];
  };
  /** The deliveries of one ticket's ticket.created the receiver got, in order. */
  const createdOf = (id: number, path: string) =>
    rx.got.filter(
      (g) =>
        g.path === path && g.headers[WEBHOOK_HEADERS.event] === 'ticket.created' && JSON.parse(g.body).data?.id === id,
    );
  const removeHook = async (id: number) =>
    expect((await call('DELETE', `/api/webhooks/${id}`, { token: admin.token })).status).toBe(200);

  beforeAll(async () => {
    rx = await startReceiver();
    clock = manualClock();
    s = await startTestServer(dialect, { WEBHOOK_ALLOWED_HOSTS: rx.host }, { clock });
    call = apiClient(s.url);
    admin = await signUpVia(call);
    agent = await addUserVia(call, admin.token, { username: `agent-${uniq()}`, type: 'agent' });
  });
  afterAll(async () => {
    await s?.stop();
    await rx?.close();
  });

  it('API a token is shown once and stored only as its SHA-256; it calls the API as Bearer', async () => {
    const r = await makeToken(admin.token, { name: 'CRM sync', scope: 'write' });
    expect(r.status, r.text).toBe(200);
    const token = r.body.token as string;
    expect(token.startsWith(API_TOKEN_PREFIX)).toBe(true);
    expect(r.body.data).toMatchObject({ name: 'CRM sync', kind: 'personal', scopes: ['read', 'write'] });
    const row = await tokenRow(r.body.data.id);
    expect(row.token_hash).toBe(hashToken(token));
    expect(Object.values(row).some((v) => typeof v === 'string' && v.includes(token.slice(8)))).toBe(false);
    const list = await call('GET', '/api/api_tokens', { token: admin.token });
    expect(list.text).not.toContain(token.slice(8));
    const users = await call('GET', '/api/users', { token });
    expect(users.status, users.text).toBe(200);
    // Only as Bearer: the same token as a query parameter is not a credential.
    expect((await call('GET', `/api/users?token=${token}`)).status).toBe(401);
  });

  it('API a read token reads, and a write is refused with 403 TOKEN_SCOPE and changes nothing', async () => {
    const token = (await makeToken(admin.token, { name: 'Reports', scope: 'read' })).body.token as string;
    expect((await call('GET', '/api/users', { token })).status).toBe(200);
    const before = await db().selectFrom('tickets').select('id').where('account_id', '=', admin.accountId).execute();
    const w = await call('POST', '/api/ticket/create', { token, body: { title: 'From a read token' } });
    expect(w.status).toBe(403);
    expect(w.body).toMatchObject({ code: ErrorCode.tokenScope, description: INTEGRATION_STRINGS.readOnlyToken });
    const after = await db().selectFrom('tickets').select('id').where('account_id', '=', admin.accountId).execute();
    expect(after.length).toBe(before.length);
    // A write token writes.
    const wt = (await makeToken(admin.token, { name: 'Writer', scope: 'write' })).body.token as string;
    await newTicket(wt);
  });

  it("API a personal token acts as its user, never more: an agent's token gets 403 on admin routes", async () => {
    const r = await makeToken(agent.token, { name: 'Mine', scope: 'write' });
    expect(r.status, r.text).toBe(200);
    expect((await call('GET', '/api/users', { token: r.body.token })).status).toBe(403);
    // Account tokens are admins' to make.
    const acct = await makeToken(agent.token, { name: 'Ours', kind: 'account', scope: 'read' });
    expect(acct.status).toBe(403);
    const made = await makeToken(admin.token, { name: 'Helpdesk bot', kind: 'account', scope: 'read' });
    expect(made.status).toBe(200);
    // The agent sees only their own personal tokens; an admin also the account's, but no one else's personal ones.
    const mine = (await call('GET', '/api/api_tokens', { token: agent.token })).body.data as { id: number }[];
    expect(mine.map((t) => t.id)).toEqual([r.body.data.id]);
    const admins = (await call('GET', '/api/api_tokens', { token: admin.token })).body.data as { id: number }[];
    expect(admins.map((t) => t.id)).toContain(made.body.data.id);
    expect(admins.map((t) => t.id)).not.toContain(r.body.data.id);
    // Nor may an agent revoke the account's token (404, as if it did not exist).
    expect((await call('DELETE', `/api/api_tokens/${made.body.data.id}`, { token: agent.token })).status).toBe(404);
  });

  it('API revoking a token stops it at once; tokens cannot manage tokens', async () => {
    const r = await makeToken(admin.token, { name: 'Short-lived', scope: 'write' });
    const token = r.body.token as string;
    expect((await call('GET', '/api/users', { token })).status).toBe(200);
    const tokenCall = await call('GET', '/api/api_tokens', { token });
    expect(tokenCall.status).toBe(403);
    expect(tokenCall.body.description).toBe(INTEGRATION_STRINGS.tokensNotHere);
    expect((await call('DELETE', `/api/api_tokens/${r.body.data.id}`, { token: admin.token })).status).toBe(200);
    expect((await call('GET', '/api/users', { token })).status).toBe(401);
    expect((await tokenRow(r.body.data.id)).revoked_at).not.toBeNull();
    const listed = (await call('GET', '/api/api_tokens', { token: admin.token })).body.data as { id: number }[];
    expect(listed.map((t) => t.id)).not.toContain(r.body.data.id);
  });

  it('API last-used time is written on use, then at most once a minute', async () => {
    const r = await makeToken(admin.token, { name: 'Clocked', scope: 'read' });
    const token = r.body.token as string;
    expect(r.body.data.lastUsedAt).toBeNull();
    await call('GET', '/api/users', { token });
    const first = Number((await tokenRow(r.body.data.id)).last_used_at);
    expect(first).toBeGreaterThan(0);
    clock.advance(30_000);
    await call('GET', '/api/users', { token });
    expect(Number((await tokenRow(r.body.data.id)).last_used_at)).toBe(first);
    clock.advance(31_000);
    await call('GET', '/api/users', { token });
    expect(Number((await tokenRow(r.body.data.id)).last_used_at)).toBeGreaterThanOrEqual(first + 61_000);
  });

  it('API bad input: no name, an unknown scope or kind: 400 and nothing saved', async () => {
    const before = await countRows('api_tokens');
    for (const body of [
      { name: '', scope: 'read' },
      { name: '   ', scope: 'read' },
      { name: 'x', scope: 'admin' },
      { name: 'x', scope: 'read', kind: 'global' },
      { name: 'x'.repeat(101), scope: 'read' },
    ]) {
      const r = await makeToken(admin.token, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.code).toBe(ErrorCode.validation);
    }
    expect(await countRows('api_tokens')).toBe(before);
  });

  it('API the OpenAPI document at /api/docs covers the token and webhook routes with their schemas', async () => {
    const r = await call('GET', '/api/docs');
    expect(r.status).toBe(200);
    const paths = r.body.paths as Record<string, Record<string, any>>;
    const body = (p: string, m: string) => paths[p]?.[m]?.requestBody?.content?.['application/json']?.schema;
    const answer = (p: string, m: string) => paths[p]?.[m]?.responses?.['200']?.content?.['application/json']?.schema;
    expect(Object.keys(body('/api/api_tokens', 'post')?.properties ?? {})).toEqual(['name', 'kind', 'scope']);
    expect(answer('/api/api_tokens', 'post')?.properties?.token).toBeDefined();
    expect(answer('/api/api_tokens', 'get')).toBeDefined();
    expect(paths['/api/api_tokens/{id}']?.delete).toBeDefined();
    expect(body('/api/webhooks', 'post')?.properties?.events?.items?.enum).toContain('livechat.queued');
    expect(body('/api/webhooks/{id}', 'put')).toBeDefined();
    expect(
      answer('/api/webhooks/{id}/deliveries', 'get')?.properties?.data?.items?.properties?.statusCode,
    ).toBeDefined();
    expect(paths['/api/webhooks/deliveries/{id}/redeliver']?.post).toBeDefined();
  });

  it('WEBHOOK a subscribed event is posted signed (HMAC-SHA256 over timestamp.body) and logged as delivered', async () => {
    const hook = await addHook('/created', ['ticket.created']);
    const other = await addHook('/ended', ['livechat.ended']);
    const id = await newTicket(admin.token);
    const got = await waitFor(() => createdOf(id, '/created')[0], 'the delivery of ticket.created');
    const ts = got.headers[WEBHOOK_HEADERS.timestamp] as string;
    const expected = `sha256=${createHmac('sha256', hook.secret).update(`${ts}.${got.body}`).digest('hex')}`;
    expect(got.headers[WEBHOOK_HEADERS.signature]).toBe(expected);
    expect(Math.abs(Number(ts) * 1000 - Date.now())).toBeLessThan(5_000);
    const body = JSON.parse(got.body);
    expect(body).toMatchObject({ event: 'ticket.created', accountId: admin.accountId, data: { id } });
    const log = await waitFor(async () => {
      const list = await deliveries(hook.data.id);
      return list[0]?.state === 'delivered' ? list : null;
    }, 'the delivery logged as delivered');
    expect(log[0]).toMatchObject({ attempts: 1, statusCode: 200, error: '' });
    expect(String(log[0]!.id)).toBe(got.headers[WEBHOOK_HEADERS.delivery]);
    // Written in the same transaction as the delivery above: a webhook not subscribed to it got none.
    expect(await deliveries(other.data.id)).toEqual([]);
    await removeHook(hook.data.id);
    await removeHook(other.data.id);
  });

  it('WEBHOOK a 500 is retried with backoff and then delivered; redelivery sends the same body as a new delivery', async () => {
    const hook = await addHook('/retry', ['ticket.created']);
    rx.statuses.push(500);
    const id = await newTicket(admin.token);
    const mine = () => createdOf(id, '/retry');
    await waitFor(() => mine().length >= 2, 'the retry after the 500');
    const [first, second] = mine();
    expect(first!.headers[WEBHOOK_HEADERS.delivery]).toBe(second!.headers[WEBHOOK_HEADERS.delivery]);
    expect(second!.body).toBe(first!.body);
    const log = await waitFor(async () => {
      const list = await deliveries(hook.data.id);
      return list[0]?.state === 'delivered' ? list : null;
    }, 'the delivery logged as delivered');
    expect(log[0]).toMatchObject({ attempts: 2, statusCode: 200, error: '' });

    const again = await call('POST', `/api/webhooks/deliveries/${log[0]!.id}/redeliver`, { token: admin.token });
    expect(again.status, again.text).toBe(200);
    expect(again.body.data).toMatchObject({ state: 'pending', redeliveryOf: log[0]!.id });
    await waitFor(() => mine().length >= 3, 'the redelivery');
    const third = mine()[2]!;
    expect(third.body).toBe(first!.body);
    expect(third.headers[WEBHOOK_HEADERS.delivery]).toBe(String(again.body.data.id));
    const after = await waitFor(async () => {
      const list = await deliveries(hook.data.id);
      return list[0]?.state === 'delivered' ? list : null;
    }, 'the redelivery logged');
    expect(after.map((d) => d.id)).toEqual([again.body.data.id, log[0]!.id]);
    await removeHook(hook.data.id);
  });

  it('WEBHOOK a delivery still failing at its last try is failed with the status in the log', async () => {
    const hook = await addHook('/last', ['ticket.rated']);
    rx.statuses.push(503);
    const now = Date.now();
    const { id } = await db()
      .insertInto('webhook_deliveries')
      .values({
        account_id: admin.accountId,
        webhook_id: hook.data.id,
        event: 'ticket.rated',
        body: '{"event":"ticket.rated"}',
        state: 'pending',
        attempts: WEBHOOK_TRIES - 1,
        status_code: 500,
        error: 'HTTP 500',
        created_at: now,
        last_attempt_at: now,
        redelivery_of: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await sendDelivery(
      { db: db(), allowedHosts: [{ host: '127.0.0.1', port: rx.host.split(':')[1]! }] },
      admin.accountId,
      Number(id),
      WEBHOOK_TRIES,
    );
    const [d] = await deliveries(hook.data.id);
    expect(d).toMatchObject({ state: 'failed', attempts: WEBHOOK_TRIES, statusCode: 503, error: 'HTTP 503' });
    await removeHook(hook.data.id);
  });

  it('WEBHOOK bad input: a non-URL, an unknown event, a private address, plain http: 400 and nothing saved', async () => {
    const before = await countRows('webhooks');
    const cases: [Record<string, unknown>, string | null][] = [
      [{ url: 'not a url', events: ['ticket.created'] }, INTEGRATION_STRINGS.badUrl],
      [{ url: 'ftp://example.com/x', events: ['ticket.created'] }, INTEGRATION_STRINGS.badUrl],
      [{ url: 'https://example.com/x', events: ['ticket.exploded'] }, null],
      [{ url: 'https://example.com/x', events: [] }, null],
      [{ url: 'https://10.0.0.5/hook', events: ['ticket.created'] }, INTEGRATION_STRINGS.privateAddress],
      [{ url: 'https://169.254.169.254/latest', events: ['ticket.created'] }, INTEGRATION_STRINGS.privateAddress],
      [{ url: 'https://[::1]/hook', events: ['ticket.created'] }, INTEGRATION_STRINGS.privateAddress],
      [{ url: 'https://localhost/hook', events: ['ticket.created'] }, INTEGRATION_STRINGS.privateAddress],
      [{ url: 'http://example.com/hook', events: ['ticket.created'] }, INTEGRATION_STRINGS.httpsOnly],
      [{ url: 'https://user:pw@example.com/hook', events: ['ticket.created'] }, INTEGRATION_STRINGS.badUrl],
    ];
    for (const [body, description] of cases) {
      const r = await call('POST', '/api/webhooks', { token: admin.token, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      if (description) expect(r.body.description).toBe(description);
    }
    expect(await countRows('webhooks')).toBe(before);
    // A change to a bad URL leaves the webhook as it was.
    const ok = await call('POST', '/api/webhooks', {
      token: admin.token,
      body: { url: 'https://hooks.example.com/in', events: ['message.created'] },
    });
    expect(ok.status, ok.text).toBe(200);
    const put = await call('PUT', `/api/webhooks/${ok.body.data.id}`, {
      token: admin.token,
      body: { url: 'https://192.168.1.1/in', events: ['message.created'] },
    });
    expect(put.status).toBe(400);
    const list = (await call('GET', '/api/webhooks', { token: admin.token })).body.data as {
      id: number;
      url: string;
    }[];
    expect(list.find((w) => w.id === ok.body.data.id)?.url).toBe('https://hooks.example.com/in');
    // Agents do not manage webhooks.
    expect((await call('GET', '/api/webhooks', { token: agent.token })).status).toBe(403);
    await removeHook(ok.body.data.id);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type Call, signUpVia } from '../../testing/api.js';
import { insertTicket } from '../../testing/messages.js';
import { dialects, startTestServer } from '../../testing/support.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;

/**
 * Times and sequence numbers sent by a client reach bigint columns (Postgres) and Date: a value past what
 * either holds is a clear 400 on both databases, never a 500 on one and a 200 on the other.
 */
describe.each(dialects)('timestamp and number bounds (%s)', (dialect) => {
  let s: Server;
  let call: Call;

  beforeAll(async () => {
    s = await startTestServer(dialect);
    call = apiClient(s.url);
  });
  afterAll(async () => {
    await s?.stop();
  });

  const huge = ['1e16', '1e20', '99999999999999999999', 'Infinity', '-1'];

  it('MSG-42 MSG-44 a ts past any date is a 400 on the sync and check calls; a sane one still works', async () => {
    const admin = await signUpVia(call);
    const ticket = await insertTicket(s.handle.db, admin.accountId);
    for (const ts of huge) {
      const sync = await call('GET', `/ticket/data/sync?ts=${ts}`, { token: admin.token });
      expect(sync.status, `sync ts=${ts}: ${sync.text}`).toBe(400);
      expect(sync.body).toMatchObject({ result: 'failed', code: 'VALIDATION_FAILED' });
      const check = await call('POST', `/api/ticket/data/check/${ticket}/0`, {
        token: admin.token,
        raw: `{"ts":${ts === 'Infinity' ? '1e400' : ts}}`,
      });
      expect(check.status, `check ts=${ts}: ${check.text}`).toBe(400);
    }
    const ok = await call('GET', `/ticket/data/sync?ts=${Math.floor(Date.now() / 1000) - 60}`, { token: admin.token });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.tickets.map((t: { id: number }) => t.id)).toContain(ticket);
    const max = await call('GET', '/ticket/data/sync?ts=8640000000000', { token: admin.token });
    expect(max.status, max.text).toBe(200);
    expect(max.body.tickets).toEqual([]);
  });

  it('TICKET-30 date filters past any date are a 400 on the ticket load call', async () => {
    const admin = await signUpVia(call);
    for (const key of ['start', 'end', 'apptStart', 'apptEnd'])
      for (const v of ['1e16', '9007199254740991']) {
        const r = await call('GET', `/api/ticket/load/me/all/all/0?${key}=${v}`, { token: admin.token });
        expect(r.status, `${key}=${v}: ${r.text}`).toBe(400);
      }
  });

  it('an announcement expiring past the last date a Date holds is a 400; a real date works', async () => {
    const admin = await signUpVia(call);
    for (const expires_at of [8_640_000_000_000_001, Number.MAX_SAFE_INTEGER]) {
      const r = await call('POST', '/api/announcement', { token: admin.token, body: { message: 'Hi', expires_at } });
      expect(r.status, `${expires_at}: ${r.text}`).toBe(400);
    }
    const ok = await call('POST', '/api/announcement', {
      token: admin.token,
      body: { message: 'Hi', expires_at: Date.now() + 60_000 },
    });
    expect(ok.status, ok.text).toBe(200);
  });

  it('RT-40 RT-41 event ids past what a sequence holds are a 400', async () => {
    const admin = await signUpVia(call);
    for (const v of ['1e20', '99999999999999999999']) {
      expect((await call('GET', `/event/${v}`, { token: admin.token })).status).toBe(400);
      expect((await call('GET', `/api/events?after=${v}`, { token: admin.token })).status).toBe(400);
    }
    expect((await call('GET', '/event/0', { token: admin.token })).status).toBe(200);
  });
});

import { AuthCheckAnswer, CALL_STRINGS, CallConfigAnswer } from '@parley/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUserVia, apiClient, type Call, signUpVia, uniq } from '../../testing/api.js';
import { dialects, startTestServer } from '../../testing/support.js';

const DEFAULT = 'wss://sip.parley.example:8089/ws';

describe.each(dialects)('CALL the call server of an account (%s)', (dialect) => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let call: Call;

  beforeAll(async () => {
    server = await startTestServer(dialect, { SIP_WS_URL: DEFAULT });
    call = apiClient(server.url);
  });
  afterAll(async () => server?.stop());

  const check = async (token: string) => AuthCheckAnswer.parse((await call('POST', '/api/auth/check', { token })).body);
  const config = async (token: string) =>
    CallConfigAnswer.parse((await call('GET', '/api/call/config', { token })).body).data;

  it('CALL-02 CALL-13 CALL-14 CALL-43 CALL-44 the installation default until an admin sets the account its own; the auth check follows', async () => {
    const a = await signUpVia(call);
    const b = await signUpVia(call);
    expect(await config(a.token)).toEqual({ sip_ws_url: null, default_url: DEFAULT, acw_seconds: 30 });
    expect(await check(a.token)).toMatchObject({
      sip_ws_url: DEFAULT,
      sip_default: true,
      sipIp: 'sip.parley.example',
      sipPort: 8089,
    });

    const own = 'wss://pbx.acme.example/ws';
    const r = await call('POST', '/api/call/config', { token: a.token, body: { sip_ws_url: `  ${own} ` } });
    expect(r.status, r.text).toBe(200);
    expect(CallConfigAnswer.parse(r.body).data).toEqual({ sip_ws_url: own, default_url: DEFAULT, acw_seconds: 30 });
    expect(await check(a.token)).toMatchObject({
      sip_ws_url: own,
      sip_default: false,
      sipIp: 'pbx.acme.example',
      sipPort: 443,
    });
    // Another account keeps the default.
    expect(await check(b.token)).toMatchObject({ sip_ws_url: DEFAULT, sip_default: true });
    const audit = await server.handle.db
      .selectFrom('audit_log')
      .select('detail')
      .where('account_id', '=', a.accountId)
      .where('action', '=', 'account.call_server_set')
      .execute();
    expect(audit.map((x) => JSON.parse(x.detail))).toEqual([{ sip_ws_url: own }]);

    // '' (or null) goes back to the installation's.
    expect((await call('POST', '/api/call/config', { token: a.token, body: { sip_ws_url: '' } })).status).toBe(200);
    expect(await check(a.token)).toMatchObject({ sip_ws_url: DEFAULT, sip_default: true, sipPort: 8089 });
  });

  it('CALL-43 only admins and users with call_settings may change it; bad addresses are refused and change nothing', async () => {
    const a = await signUpVia(call);
    const agent = await addUserVia(call, a.token, { username: `agent-${uniq()}`, type: 'agent' });
    const own = 'ws://127.0.0.1:5066';
    const refused = await call('POST', '/api/call/config', { token: agent.token, body: { sip_ws_url: own } });
    expect(refused.status).toBe(403);
    expect(refused.body.description).toBe(CALL_STRINGS.notAllowed);
    expect((await config(a.token)).sip_ws_url).toBeNull();
    // Anyone of the account reads it (their softphone needs it).
    expect((await config(agent.token)).default_url).toBe(DEFAULT);

    const edit = await call('PATCH', `/api/users/${agent.id}`, {
      token: a.token,
      body: { permission: ['call_settings'] },
    });
    expect(edit.status, edit.text).toBe(200);
    const ok = await call('POST', '/api/call/config', { token: agent.token, body: { sip_ws_url: own } });
    expect(ok.status, ok.text).toBe(200);
    expect(await check(agent.token)).toMatchObject({ sip_ws_url: own, sipIp: '127.0.0.1', sipPort: 5066 });

    for (const bad of [
      'http://pbx.example/ws',
      'wss://',
      'pbx.example:8089',
      `wss://${'a'.repeat(300)}.example`,
      42,
      true,
    ]) {
      const r = await call('POST', '/api/call/config', { token: a.token, body: { sip_ws_url: bad } });
      expect(r.status, String(bad)).toBe(400);
      if (typeof bad === 'string') expect(r.body.description, bad).toBe(CALL_STRINGS.badUrl);
    }
    expect((await call('POST', '/api/call/config', { token: a.token, body: {} })).status).toBe(400);
    expect((await config(a.token)).sip_ws_url).toBe(own);
    expect((await call('POST', '/api/call/config', { body: { sip_ws_url: own } })).status).toBe(401);
  });
});

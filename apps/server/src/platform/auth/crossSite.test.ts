import { SESSION_COOKIE } from '@parley/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type Call, signUpVia } from '../../testing/api.js';
import { dialects, startTestServer } from '../../testing/support.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;

describe.each(dialects)('cross-site writes with the session cookie (%s)', (dialect) => {
  let s: Server;
  let call: Call;

  beforeAll(async () => {
    s = await startTestServer(dialect);
    call = apiClient(s.url);
  });
  afterAll(async () => {
    await s?.stop();
  });

  const alive = async (token: string) => (await call('POST', '/api/auth/check', { token })).body.result === 'success';

  it('a cookie write with neither Origin nor Referer is refused (403) and changes nothing', async () => {
    const admin = await signUpVia(call);
    const cookies = { [SESSION_COOKIE]: admin.token };
    const bare = await call('DELETE', '/api/user/signout?current=1', { cookies });
    expect(bare.status, bare.text).toBe(403);
    expect(bare.body).toMatchObject({
      result: 'failed',
      code: 'FORBIDDEN',
      description: 'Cross-site request refused.',
    });
    expect(await alive(admin.token)).toBe(true);

    // Another site's Origin or Referer is refused too.
    const foreign: Record<string, string>[] = [
      { origin: 'https://evil.example' },
      { referer: 'https://evil.example/x' },
    ];
    for (const headers of foreign)
      expect((await call('DELETE', '/api/user/signout?current=1', { cookies, headers })).status).toBe(403);
    expect(await alive(admin.token)).toBe(true);

    // A read with the cookie alone still works; so do our own pages' writes (the browser sends Origin on
    // every POST, PUT, PATCH and DELETE), a Referer of this host, and Bearer calls, which carry no ambient
    // credential.
    expect((await call('GET', '/api/user/sessions', { cookies })).status).toBe(200);
    const host = new URL(s.url).host;
    const viaReferer = await call('POST', '/api/auth/check', {
      cookies,
      headers: { referer: `http://${host}/settings` },
    });
    expect(viaReferer.status, viaReferer.text).toBe(200);
    expect(viaReferer.body.result).toBe('success');
    const own = await call('DELETE', '/api/user/signout?current=1', { cookies, origin: s.url });
    expect(own.status, own.text).toBe(200);
    expect(await alive(admin.token)).toBe(false);

    const other = await signUpVia(call);
    const bearer = await call('DELETE', '/api/user/signout?current=1', { token: other.token });
    expect(bearer.status, bearer.text).toBe(200);
    expect(await alive(other.token)).toBe(false);
  });
});

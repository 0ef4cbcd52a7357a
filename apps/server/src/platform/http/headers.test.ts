import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUserVia, apiClient, type Call, signUpVia, uniq } from '../../testing/api.js';
import { dialects, startTestServer, tempDir } from '../../testing/support.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;

/** A web build with the app's index page and the widget's light page, so no `npm run build` is needed. */
function fakeWebDist(): string {
  const dir = tempDir('parley-web-');
  fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html><html><body>app</body></html>');
  fs.mkdirSync(path.join(dir, 'w'));
  fs.writeFileSync(path.join(dir, 'w', 'widget.html'), '<!doctype html><html><body>widget</body></html>');
  return dir;
}

const get = (url: string, headers: Record<string, string> = {}) => fetch(url, { headers });

describe.each(dialects)('security headers (%s)', (dialect) => {
  let s: Server;
  let call: Call;

  beforeAll(async () => {
    s = await startTestServer(dialect, { WEB_DIST: fakeWebDist(), TRUST_PROXY: 'true' });
    call = apiClient(s.url);
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('a page and an API answer may be framed by our own pages only, and send a Referrer-Policy', async () => {
    const admin = await signUpVia(call);
    const answers = [
      await get(`${s.url}/`),
      await get(`${s.url}/settings/users`),
      await get(`${s.url}/api/user/sessions`, { authorization: `Bearer ${admin.token}` }),
      await get(`${s.url}/api/no-such-thing`),
    ];
    for (const res of answers) {
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp, res.url).toContain("frame-ancestors 'self'");
      expect(csp, res.url).toContain("script-src 'self'");
      expect(res.headers.get('x-frame-options'), res.url).toBe('SAMEORIGIN');
      expect(res.headers.get('referrer-policy'), res.url).toBe('strict-origin-when-cross-origin');
      expect(res.headers.get('x-content-type-options'), res.url).toBe('nosniff');
      // Plain http: no HSTS (a browser ignores it there anyway, and it would say something untrue).
      expect(res.headers.get('strict-transport-security'), res.url).toBeNull();
    }
  });

  it('LIVECHAT the widget page is frameable by any site, under the same policy otherwise', async () => {
    const res = await get(`${s.url}/w/livechat/some-token`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('widget');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain('frame-ancestors *');
    expect(csp).not.toContain("frame-ancestors 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(res.headers.get('x-frame-options')).toBeNull();
    expect(res.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
    // The app's own visitor page is not the widget: it stays unframeable.
    const visitor = await get(`${s.url}/register/livechat/some-token`);
    expect(visitor.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(visitor.headers.get('content-security-policy')).toContain("frame-ancestors 'self'");
  });

  it('HSTS is sent over https (here through a trusted proxy), on pages, the widget and the API', async () => {
    for (const p of ['/', '/w/livechat/some-token', '/healthz'])
      expect(
        (await get(`${s.url}${p}`, { 'x-forwarded-proto': 'https' })).headers.get('strict-transport-security'),
        p,
      ).toBe('max-age=31536000');
  });
});

describe('security headers without a trusted proxy', () => {
  let s: Server;
  beforeAll(async () => {
    s = await startTestServer('sqlite');
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('X-Forwarded-Proto from an untrusted client does not turn HSTS on', async () => {
    const res = await get(`${s.url}/healthz`, { 'x-forwarded-proto': 'https' });
    expect(res.headers.get('strict-transport-security')).toBeNull();
  });
});

describe('/metrics and /api/docs access', () => {
  const servers: Server[] = [];
  const start = async (env: Record<string, string> = {}) => {
    const s = await startTestServer('sqlite', env);
    servers.push(s);
    return s;
  };
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
  }, 60_000);
  const metrics = (s: Server, headers: Record<string, string> = {}) => get(`${s.url}/metrics`, headers);

  it('by default /metrics answers a local scraper only; a proxied or remote caller gets 401', async () => {
    const s = await start();
    const local = await metrics(s);
    expect(local.status).toBe(200);
    expect(await local.text()).toMatch(/^# HELP parley_http_requests_total /m);
    // Through a reverse proxy on this machine: the proxy says who really asked.
    const proxies: Record<string, string>[] = [{ 'x-forwarded-for': '203.0.113.7' }, { forwarded: 'for=203.0.113.7' }];
    for (const headers of proxies) {
      const proxied = await metrics(s, headers);
      expect(proxied.status).toBe(401);
      const body = await proxied.json();
      expect(body).toMatchObject({ result: 'failed', code: 'UNAUTHORIZED' });
      expect(body.description).toContain('METRICS_TOKEN');
    }
  });

  it('with TRUST_PROXY, the client address decides; METRICS_TOKEN as a Bearer token lets a scraper in', async () => {
    const token = `metrics-${uniq()}-${uniq()}-${uniq()}`;
    const s = await start({ TRUST_PROXY: 'true', METRICS_TOKEN: token });
    const remote = { 'x-forwarded-for': '203.0.113.7' };
    expect((await metrics(s, remote)).status).toBe(401);
    expect((await metrics(s, { ...remote, authorization: 'Bearer not-the-token-at-all' })).status).toBe(401);
    expect((await metrics(s, { ...remote, authorization: `Bearer ${token}` })).status).toBe(200);
    // A session token is not a metrics token.
    const admin = await signUpVia(apiClient(s.url));
    expect((await metrics(s, { ...remote, authorization: `Bearer ${admin.token}` })).status).toBe(401);
  });

  it('METRICS_PUBLIC=true opens /metrics to anyone', async () => {
    const s = await start({ METRICS_PUBLIC: 'true' });
    expect((await metrics(s, { 'x-forwarded-for': '203.0.113.7' })).status).toBe(200);
  });

  it('/api/docs is public by default; API_DOCS_PUBLIC=false keeps it for admins', async () => {
    const open = await start();
    const openDocs = await get(`${open.url}/api/docs`);
    expect(openDocs.status).toBe(200);
    expect(((await openDocs.json()) as { openapi: string }).openapi).toMatch(/^3\./);

    const closed = await start({ API_DOCS_PUBLIC: 'false' });
    const call = apiClient(closed.url);
    expect((await call('GET', '/api/docs')).status).toBe(401);
    const admin = await signUpVia(call);
    const agent = await addUserVia(call, admin.token, { username: `agent-${uniq()}`, type: 'agent' });
    expect((await call('GET', '/api/docs', { token: agent.token })).status).toBe(403);
    const docs = await call('GET', '/api/docs', { token: admin.token });
    expect(docs.status).toBe(200);
    expect(docs.body.openapi).toMatch(/^3\./);
  });
});

import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { SESSION_COOKIE } from '@parley/contracts';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Answer, apiClient, type Call, signUpVia, uniq } from '../../testing/api.js';
import { createWorkspaceVia, dialects, startTestServer, tempDir } from '../../testing/support.js';
import type { Database } from '../db/schema.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;

/** Every table a request could write to (the relay's and presence's own bookkeeping aside). */
const TABLES: (keyof Database)[] = [
  'accounts',
  'users',
  'sessions',
  'account_seq',
  'events',
  'status_periods',
  'custom_statuses',
  'announcements',
  'departments',
  'labels',
  'tickets',
  'messages',
  'audit_log',
  'login_attempts',
  'one_time_tokens',
  'canned_replies',
  'macros',
  'macro_runs',
  'automation_rules',
  'automation_runs',
  'mailboxes',
  'api_tokens',
  'webhooks',
  'webhook_deliveries',
];

const INDEX_MARKER = '<!-- parley test index -->';

/** A web build with only an index page, so the SPA fallback does not depend on `npm run build`. */
function fakeWebDist(): string {
  const dir = tempDir('parley-web-');
  fs.writeFileSync(path.join(dir, 'index.html'), `<!doctype html><html><body>${INDEX_MARKER}</body></html>`);
  return dir;
}

/** The one error shape: exactly these keys (issues only for validation failures). */
function expectFailure(r: Answer, status: number, code: string): void {
  expect(r.status, r.text).toBe(status);
  expect(r.body, r.text).toMatchObject({ result: 'failed', code, description: expect.any(String) });
  expect(r.body.description.length).toBeGreaterThan(0);
  const keys = Object.keys(r.body).sort();
  expect(keys.filter((k) => k !== 'issues')).toEqual(['code', 'description', 'result']);
  // No stack trace or internals ever leave the server.
  expect(r.text).not.toMatch(/at \w+ \(|node_modules|\.ts:\d+|Error:/);
}

/**
 * A raw request over node:http: the whole body is offered whatever the server does, and a reset after the
 * answer has arrived is not a failure (a server may close the connection on an oversized upload).
 */
function rawRequest(
  url: string,
  o: { method: string; path: string; headers?: Record<string, string>; chunks?: Buffer[] },
): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = http.request(
      { host: u.hostname, port: u.port, method: o.method, path: o.path, headers: o.headers, agent: false },
      (res) => {
        answered = true;
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => {
          text += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
        res.on('error', reject);
      },
    );
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    const write = async () => {
      for (const c of o.chunks ?? []) {
        if (answered || req.destroyed) break;
        if (!req.write(c)) await new Promise((r) => req.once('drain', r));
      }
      req.end();
    };
    write().catch(() => {});
  });
}

describe.each(dialects)('HTTP pipeline (%s)', (dialect) => {
  let s: Server;
  let call: Call;
  let admin: Awaited<ReturnType<typeof createWorkspaceVia>>;
  let webDir: string;
  const db = () => s.handle.db;

  async function counts(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const t of TABLES) {
      const r = await db().selectFrom(t).select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow();
      out[t] = Number(r.n);
    }
    return out;
  }

  beforeAll(async () => {
    webDir = fakeWebDist();
    s = await startTestServer(dialect, { WEB_DIST: webDir });
    call = apiClient(s.url);
    admin = await createWorkspaceVia(s.url);
  });
  afterAll(async () => {
    await s?.stop();
    fs.rmSync(webDir, { recursive: true, force: true });
  });

  it('FOUNDATION malformed JSON gets 400 and writes nothing', async () => {
    const before = await counts();
    const broken = [
      '{',
      '{"company": "Acme",',
      "{'single': 'quotes'}",
      '{"a": 1}}',
      'undefined',
      '{"a": NaN}',
      '\u0000',
    ];
    const targets: { path: string; token?: string }[] = [
      { path: '/api/setup' },
      { path: '/api/signup' },
      { path: '/api/auth2' },
      { path: '/api/auth/check' },
      { path: '/api/users', token: admin.token },
      { path: '/api/online_status/update', token: admin.token },
      { path: '/api/customstatus', token: admin.token },
      { path: '/api/user/password', token: admin.token },
    ];
    for (const t of targets) {
      for (const raw of broken) {
        const r = await call('POST', t.path, { raw, token: t.token });
        expectFailure(r, 400, 'BAD_JSON');
        expect(r.body.issues).toBeUndefined();
      }
    }
    expect(await counts()).toEqual(before);
  });

  it('FOUNDATION a missing required field gets 400 with issues naming it and writes nothing', async () => {
    const before = await counts();
    const signup = await call('POST', '/api/signup', {
      body: { company: 'Missing Co', name: 'No Password', username: `nopw-${uniq()}`, email: 'nopw@example.com' },
    });
    expectFailure(signup, 400, 'VALIDATION_FAILED');
    expect(signup.body.issues).toEqual(
      expect.arrayContaining([{ path: 'body.password', message: expect.any(String) }]),
    );
    expect(signup.body.description).toBe(signup.body.issues[0].message);

    const user = await call('POST', '/api/users', {
      token: admin.token,
      body: { name: 'No Username', password: 'user password 1', type: 'agent' },
    });
    expectFailure(user, 400, 'VALIDATION_FAILED');
    expect(user.body.issues.map((i: { path: string }) => i.path)).toContain('body.username');

    const status = await call('POST', '/api/online_status/update', { token: admin.token, body: {} });
    expectFailure(status, 400, 'VALIDATION_FAILED');
    expect(status.body.issues.map((i: { path: string }) => i.path)).toContain('body.status');

    // A JSON value that is not an object at all is a validation failure too.
    for (const raw of ['null', '[]', '"text"', '42', 'true']) {
      const r = await call('POST', '/api/signup', { raw });
      expectFailure(r, 400, 'VALIDATION_FAILED');
      expect(Array.isArray(r.body.issues)).toBe(true);
    }
    // Query strings are validated the same way.
    for (const after of ['abc', '-1', '1.5', '1e400']) {
      const r = await call('GET', `/api/events?after=${after}`, { token: admin.token });
      expectFailure(r, 400, 'VALIDATION_FAILED');
      expect(r.body.issues[0].path).toMatch(/^querystring/);
    }
    expect(await counts()).toEqual(before);
  });

  it('FOUNDATION a 10 MB body gets 413 and the server keeps serving the next request', async () => {
    const before = await counts();
    const big = Buffer.alloc(10 * 1024 * 1024, 'a');
    const json = Buffer.concat([Buffer.from('{"company":"'), big, Buffer.from('"}')]);

    // With a Content-Length the server can refuse before reading.
    const declared = await rawRequest(s.url, {
      method: 'POST',
      path: '/api/signup',
      headers: { 'content-type': 'application/json', 'content-length': String(json.length) },
      chunks: [json],
    });
    expect(declared.status).toBe(413);
    expectFailure(
      { status: declared.status, text: declared.text, body: JSON.parse(declared.text), cookies: {} },
      413,
      'PAYLOAD_TOO_LARGE',
    );

    // Chunked, without a length: the limit is enforced while streaming.
    const chunks: Buffer[] = [];
    for (let i = 0; i < json.length; i += 256 * 1024) chunks.push(json.subarray(i, i + 256 * 1024));
    const streamed = await rawRequest(s.url, {
      method: 'POST',
      path: '/api/users',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${admin.token}` },
      chunks,
    });
    expect(streamed.status).toBe(413);
    expect(JSON.parse(streamed.text)).toMatchObject({ result: 'failed', code: 'PAYLOAD_TOO_LARGE' });

    // Through fetch as well, then the very next requests are served normally.
    const viaFetch = await fetch(`${s.url}/api/auth2`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: json,
    }).catch((err: Error) => err);
    if (!(viaFetch instanceof Error)) expect(viaFetch.status).toBe(413);

    expect(await counts()).toEqual(before);
    expect((await call('GET', '/healthz')).status).toBe(200);
    const ok = await call('POST', '/api/online_status/update', {
      token: admin.token,
      body: { status: 'AWAY', reason: 'after the big body' },
    });
    expect(ok.status, ok.text).toBe(200);
    const signedUp = await signUpVia(call);
    expect(signedUp.token).toBeTruthy();
  });

  it('FOUNDATION no bad input gets a 5xx, and every refusal uses the one error shape', async () => {
    const before = await counts();
    const nul = `nul\u0000-${uniq()}`;
    const deep = `${'['.repeat(50_000)}${']'.repeat(50_000)}`;
    const cases: {
      name: string;
      method: string;
      path: string;
      token?: string;
      raw?: string;
      body?: unknown;
      headers?: Record<string, string>;
    }[] = [
      { name: 'empty JSON body', method: 'POST', path: '/api/signup', raw: '' },
      { name: 'text/plain body', method: 'POST', path: '/api/signup', headers: { 'content-type': 'text/plain' } },
      { name: 'prototype pollution', method: 'POST', path: '/api/signup', raw: '{"__proto__":{"admin":true}}' },
      {
        name: 'constructor pollution',
        method: 'POST',
        path: '/api/signup',
        raw: '{"constructor":{"prototype":{"x":1}}}',
      },
      { name: 'deep nesting', method: 'POST', path: '/api/signup', raw: `{"company":${deep}}` },
      {
        name: 'wrong types',
        method: 'POST',
        path: '/api/signup',
        body: { company: 1, name: [], username: {}, email: null, password: true },
      },
      {
        name: 'NUL in signup',
        method: 'POST',
        path: '/api/signup',
        body: { company: nul, name: nul, username: nul, email: `${uniq()}@example.com`, password: `pw ${nul}` },
      },
      { name: 'NUL in sign-in', method: 'POST', path: '/api/auth2', body: { client: nul, password: nul } },
      {
        name: 'NUL in user',
        method: 'POST',
        path: '/api/users',
        token: admin.token,
        body: { username: nul, name: nul, password: 'user password 1', type: 'agent' },
      },
      {
        name: 'NUL and exponent in payment',
        method: 'POST',
        path: '/api/payment/create',
        token: admin.token,
        body: { plan: nul, quantity: '1e3' },
      },
      {
        name: 'NUL in payment ref',
        method: 'GET',
        path: `/api/payment/status?ref=${encodeURIComponent(nul)}`,
        token: admin.token,
      },
      { name: 'bad pricing country', method: 'GET', path: '/api/pricing?country=%00x' },
      { name: 'unsigned webhook', method: 'POST', path: '/api/payment/webhook/stripe', raw: `{"a":${deep}}` },
      {
        name: 'NUL in status',
        method: 'POST',
        path: '/api/online_status/update',
        token: admin.token,
        body: { status: nul, reason: nul },
      },
      {
        name: 'NUL in custom status',
        method: 'POST',
        path: '/api/customstatus',
        token: admin.token,
        body: { name: nul },
      },
      { name: 'NUL in campaign name', method: 'POST', path: '/api/campaign', token: admin.token, body: { name: nul } },
      {
        name: 'campaign name of spaces',
        method: 'POST',
        path: '/api/campaign',
        token: admin.token,
        body: { name: '   ' },
      },
      {
        name: 'campaign name too long',
        method: 'POST',
        path: '/api/campaign',
        token: admin.token,
        body: { name: 'c'.repeat(101) },
      },
      { name: 'customer analysis period', method: 'GET', path: '/api/customer_analysis?days=-30', token: admin.token },
      { name: 'campaign id not a number', method: 'GET', path: '/api/campaign/abc', token: admin.token },
      { name: 'NUL in product name', method: 'POST', path: '/api/products', token: admin.token, body: { name: nul } },
      {
        name: 'product name of spaces',
        method: 'POST',
        path: '/api/products',
        token: admin.token,
        body: { name: ' ' },
      },
      { name: 'product id not a number', method: 'GET', path: '/api/products/abc', token: admin.token },
      {
        name: 'ticket products not a list',
        method: 'PUT',
        path: '/api/products/ticket/1',
        token: admin.token,
        body: { product_ids: 'all' },
      },
      { name: 'campaign id zero', method: 'DELETE', path: '/api/campaign/0', token: admin.token },
      {
        name: 'NUL in canned reply',
        method: 'POST',
        path: '/api/replies/canned',
        token: admin.token,
        body: { title: nul, shortcut: 'nul', body: nul },
      },
      {
        name: 'unknown variable in canned reply',
        method: 'POST',
        path: '/api/replies/canned',
        token: admin.token,
        body: { title: 'x', shortcut: `v${uniq()}`, body: 'Hi {{customer.shoe_size}}' },
      },
      {
        name: 'macro action of an unknown type',
        method: 'POST',
        path: '/api/macros',
        token: admin.token,
        body: { name: 'm', actions: [{ type: 'delete_everything' }] },
      },
      {
        name: 'API token without a name',
        method: 'POST',
        path: '/api/api_tokens',
        token: admin.token,
        body: { scope: 'read' },
      },
      {
        name: 'API token of an unknown scope and NUL in its name',
        method: 'POST',
        path: '/api/api_tokens',
        token: admin.token,
        body: { name: nul, scope: 'root' },
      },
      {
        name: 'revoke of a huge token id',
        method: 'DELETE',
        path: '/api/api_tokens/99999999999999999999',
        token: admin.token,
      },
      {
        name: 'webhook with a non-URL',
        method: 'POST',
        path: '/api/webhooks',
        token: admin.token,
        body: { url: 'not a url', events: ['ticket.created'] },
      },
      {
        name: 'webhook to a private address',
        method: 'POST',
        path: '/api/webhooks',
        token: admin.token,
        body: { url: 'https://127.0.0.1/hook', events: ['ticket.created'] },
      },
      {
        name: 'webhook of an unknown event',
        method: 'POST',
        path: '/api/webhooks',
        token: admin.token,
        body: { url: 'https://example.com/hook', events: ['everything'] },
      },
      {
        name: 'webhook change of a non-number',
        method: 'PUT',
        path: '/api/webhooks/abc',
        token: admin.token,
        body: { url: 'https://example.com/hook', events: ['ticket.created'] },
      },
      {
        name: 'SSO with IdP metadata that is not XML',
        method: 'PUT',
        path: '/api/sso/config',
        token: admin.token,
        body: { kind: 'saml', enabled: true, slug: 'bad-input-sso', saml: { metadataXml: 'not xml at all' } },
      },
      {
        name: 'SSO with an issuer that is not a URL',
        method: 'PUT',
        path: '/api/sso/config',
        token: admin.token,
        body: {
          kind: 'oidc',
          enabled: true,
          slug: 'bad-input-sso',
          oidc: { issuer: 'not a url', clientId: 'x', clientSecret: 'y' },
        },
      },
      {
        name: 'SSO with an unknown protocol',
        method: 'PUT',
        path: '/api/sso/config',
        token: admin.token,
        body: { kind: 'kerberos', enabled: true, slug: 'bad-input-sso' },
      },
      {
        name: 'SSO start with an overlong name',
        method: 'GET',
        path: `/api/sso/${'x'.repeat(300)}/start`,
      },
      {
        name: 'SAML ACS without a response',
        method: 'POST',
        path: '/api/sso/1/saml/acs',
        body: { RelayState: 'x' },
      },
      {
        name: 'SAML single logout posted without a request',
        method: 'POST',
        path: '/api/sso/1/saml/slo',
        body: { RelayState: 'x' },
      },
      {
        name: 'SAML single logout with a request that is not SAML',
        method: 'GET',
        path: '/api/sso/1/saml/slo?SAMLRequest=bm90LXNhbWw%3D&Signature=x&SigAlg=y',
      },
      {
        name: 'redelivery of a huge id',
        method: 'POST',
        path: '/api/webhooks/deliveries/99999999999999999999/redeliver',
        token: admin.token,
      },
      ...[0, -1, 3651, 1e308, 'NaN'].map((days) => ({
        name: `retention rule of ${days} days`,
        method: 'POST',
        path: '/api/retention/rules',
        token: admin.token,
        body: { ...{ target: 'closed_tickets', action: 'delete', channel: '' }, days },
      })),
      {
        name: 'retention rule of an unknown target and action',
        method: 'POST',
        path: '/api/retention/rules',
        token: admin.token,
        body: { target: 'everything', action: 'shred', days: 30 },
      },
      {
        name: 'NUL in a retention rule channel',
        method: 'POST',
        path: '/api/retention/preview',
        token: admin.token,
        body: { ...{ target: 'closed_tickets', action: 'delete', channel: '' }, days: 30, channel: nul },
      },
      {
        name: 'retention rule change of a huge id',
        method: 'PUT',
        path: '/api/retention/rules/99999999999999999999',
        token: admin.token,
        body: { ...{ target: 'closed_tickets', action: 'delete', channel: '' }, days: 30 },
      },
      { name: 'contact export of a non-number', method: 'GET', path: '/api/contacts/abc/export', token: admin.token },
      {
        name: 'contact erasure without a confirmation',
        method: 'POST',
        path: '/api/contacts/1/erase',
        token: admin.token,
        body: { confirm: 42 },
      },
      {
        name: 'NUL in macro',
        method: 'POST',
        path: '/api/macros',
        token: admin.token,
        body: { name: nul, actions: [] },
      },
      {
        name: 'automation rule with an unknown action',
        method: 'POST',
        path: '/api/automation/rules',
        token: admin.token,
        body: { name: 'r', event: 'customer_message', actions: [{ type: 'call_webhook', url: 'https://x.test' }] },
      },
      {
        name: 'automation rule with an unknown field',
        method: 'POST',
        path: '/api/automation/rules',
        token: admin.token,
        body: {
          name: 'r',
          event: 'customer_message',
          conditions: [{ field: 'channel', in: ['WHATSAPP'], also: 1 }],
          actions: [{ type: 'priority', priority: 'H' }],
        },
      },
      {
        name: 'NUL in automation rule',
        method: 'POST',
        path: '/api/automation/rules',
        token: admin.token,
        body: { name: nul, event: nul, actions: [{ type: 'note', text: nul }] },
      },
      {
        name: 'automation order with ids of the wrong type',
        method: 'PUT',
        path: '/api/automation/rules/order',
        token: admin.token,
        body: { ids: [{}, 'x'] },
      },
      {
        name: 'dry run of a huge rule id in a condition',
        method: 'POST',
        path: '/api/automation/dry-run',
        token: admin.token,
        body: {
          name: 'r',
          event: 'ticket_created',
          conditions: [{ field: 'department', in: [1e300] }],
          actions: [{ type: 'priority', priority: 'H' }],
        },
      },
      {
        name: 'macro run with ticket ids of the wrong type',
        method: 'POST',
        path: '/api/macros/1/run',
        token: admin.token,
        body: { ticket_ids: [{}, null] },
      },
      {
        name: 'undo of a huge run id',
        method: 'POST',
        path: '/api/macros/runs/99999999999999999999/undo',
        token: admin.token,
      },
      {
        name: 'mailbox with a bad address and ports out of range',
        method: 'POST',
        path: '/api/mailboxes',
        token: admin.token,
        body: {
          address: 'nobody',
          imap: { host: 'imap.example.com', port: 0, tls: true, user: 'u', password: 'p' },
          smtp: { host: 'smtp.example.com', port: 70000, tls: true, user: 'u' },
        },
      },
      {
        name: 'NUL in mailbox',
        method: 'POST',
        path: '/api/mailboxes',
        token: admin.token,
        body: {
          address: `a${uniq()}@example.com`,
          name: nul,
          imap: { host: 'imap.example.com', port: 993, tls: true, user: nul, password: 'p' },
          smtp: { host: 'smtp.example.com', port: 465, tls: true, user: 'u' },
        },
      },
      {
        name: 'mailbox change of a huge id',
        method: 'PUT',
        path: '/api/mailboxes/99999999999999999999',
        token: admin.token,
        body: {},
      },
      { name: 'mailbox test of a non-number', method: 'POST', path: '/api/mailboxes/abc/test', token: admin.token },
      {
        name: 'Microsoft 365 mailbox without a tenant and with a bad client id',
        method: 'POST',
        path: '/api/mailboxes',
        token: admin.token,
        body: {
          kind: 'graph',
          address: `g${uniq()}@example.com`,
          graph: { tenantId: '', clientId: 'a/b', clientSecret: 's' },
        },
      },
      {
        name: 'NUL in Microsoft 365 mailbox',
        method: 'POST',
        path: '/api/mailboxes',
        token: admin.token,
        body: {
          kind: 'graph',
          address: `g${uniq()}@example.com`,
          graph: { tenantId: 't', clientId: nul, clientSecret: nul },
        },
      },
      {
        name: 'mailbox of an unknown kind',
        method: 'POST',
        path: '/api/mailboxes',
        token: admin.token,
        body: { kind: 'pop3' },
      },
      { name: 'Graph notification not JSON', method: 'POST', path: '/api/email/graph/notify', raw: '{"value":' },
      {
        name: 'Graph notification of a wrong shape',
        method: 'POST',
        path: '/api/email/graph/notify',
        body: { value: 5 },
      },
      {
        name: 'Graph notification as text',
        method: 'POST',
        path: '/api/email/graph/notify',
        raw: 'value',
        headers: { 'content-type': 'text/plain' },
      },
      {
        name: 'NUL in Graph notification',
        method: 'POST',
        path: '/api/email/graph/notify',
        body: { value: [{ subscriptionId: nul, changeType: 'created', resourceData: { id: nul } }] },
      },
      {
        name: 'Graph validation token too long',
        method: 'POST',
        path: `/api/email/graph/notify?validationToken=${'v'.repeat(5000)}`,
        raw: '',
        headers: { 'content-type': 'text/plain' },
      },
      { name: 'NUL in token', method: 'GET', path: `/api/users?_token=${encodeURIComponent(nul)}` },
      { name: 'NUL in refresh token', method: 'POST', path: '/api/auth/check', body: { refresh_token: nul } },
      { name: 'huge id', method: 'GET', path: '/api/users/99999999999999999999999', token: admin.token },
      { name: 'id past int4', method: 'GET', path: '/api/users/3000000000', token: admin.token },
      { name: 'negative id', method: 'GET', path: '/api/users/-1', token: admin.token },
      { name: 'id not a number', method: 'DELETE', path: '/api/customstatus/abc', token: admin.token },
      { name: 'huge after', method: 'GET', path: '/api/events?after=99999999999999999999', token: admin.token },
      { name: 'after past 2^53', method: 'GET', path: '/api/events?after=9007199254740993', token: admin.token },
      { name: 'repeated after', method: 'GET', path: '/api/events?after=1&after=2', token: admin.token },
      {
        name: 'very long bearer token',
        method: 'GET',
        path: '/api/users',
        headers: { authorization: `Bearer ${'x'.repeat(8000)}` },
      },
      { name: 'odd bearer', method: 'GET', path: '/api/users', headers: { authorization: 'Bearer ' } },
      {
        name: 'broken cookie encoding',
        method: 'GET',
        path: '/api/users',
        headers: { cookie: `${SESSION_COOKIE}=%E0%A4%A; other=%` },
      },
      {
        name: 'cookie write from another site',
        method: 'POST',
        path: '/api/online_status/update',
        body: { status: 'AWAY', reason: 'x' },
        headers: { cookie: `${SESSION_COOKIE}=${admin.token}`, origin: 'http://evil.example' },
      },
      {
        name: 'unparseable origin',
        method: 'POST',
        path: '/api/online_status/update',
        body: { status: 'AWAY', reason: 'x' },
        headers: { cookie: `${SESSION_COOKIE}=${admin.token}`, origin: 'not a url' },
      },
      { name: 'bad percent-encoding in path', method: 'GET', path: '/api/users/%E0%A4%A', token: admin.token },
      { name: 'bad percent-encoding in query', method: 'GET', path: '/api/events?after=%', token: admin.token },
      { name: 'unknown method', method: 'PATCH', path: '/api/users', token: admin.token, body: {} },
      { name: 'long path parameter', method: 'GET', path: `/api/users/${'9'.repeat(300)}`, token: admin.token },
      {
        name: 'NUL in call start',
        method: 'POST',
        path: '/api/call/start',
        token: admin.token,
        body: { call_id: nul, direction: 'inbound', number: nul },
      },
      {
        name: 'call of an unknown direction',
        method: 'POST',
        path: '/api/call/start',
        token: admin.token,
        body: { call_id: 'x', direction: 'up', number: '1' },
      },
      {
        name: 'end of an unknown call',
        method: 'POST',
        path: '/api/call/end',
        token: admin.token,
        body: { call_id: `none-${uniq()}` },
      },
      {
        name: 'call end with a negative duration',
        method: 'POST',
        path: '/api/call/end',
        token: admin.token,
        body: { call_id: 'x', duration: -5 },
      },
      { name: 'call id not a number', method: 'GET', path: '/api/call/abc', token: admin.token },
      { name: 'call id past 2^53', method: 'GET', path: '/api/call/9007199254740993', token: admin.token },
      {
        name: 'NUL in DID lookup',
        method: 'GET',
        path: `/api/proxy/imc_user?did=${encodeURIComponent(nul)}`,
        token: admin.token,
      },
      { name: 'DID lookup without a DID', method: 'GET', path: '/api/proxy/imc_user', token: admin.token },
      {
        name: 'NUL in DID description',
        method: 'POST',
        path: '/api/call/did',
        token: admin.token,
        body: { did: '1', description: nul },
      },
      {
        name: 'acw_seconds of a fraction',
        method: 'POST',
        path: '/api/call/config',
        token: admin.token,
        body: { sip_ws_url: null, acw_seconds: 1.5 },
      },
      { name: 'recordings of an unknown type', method: 'GET', path: '/api/recordings?type=video', token: admin.token },
      {
        name: 'recordings of an unknown emotion',
        method: 'GET',
        path: '/api/recordings?emotionFilter=furious',
        token: admin.token,
      },
      { name: 'recordings at a negative offset', method: 'GET', path: '/api/recordings?offset=-1', token: admin.token },
      {
        name: 'recording of a ticket id not a number',
        method: 'GET',
        path: '/api/recordings/abc/audio',
        token: admin.token,
      },
      {
        name: 'recording of a call that has none',
        method: 'GET',
        path: '/api/recordings/99999999/audio',
        token: admin.token,
      },
      {
        name: 'call list on an unreadable date',
        method: 'GET',
        path: '/api/ticket/load/me/all/call2/0?date=2026-13-45',
        token: admin.token,
      },
      {
        name: 'call list at an energy off the steps',
        method: 'GET',
        path: '/api/ticket/load/me/all/call2/0?energy=33',
        token: admin.token,
      },
      { name: 'long path', method: 'GET', path: `/api/${'a'.repeat(10_000)}` },
    ];
    const answers: { name: string; r: Answer }[] = [];
    for (const c of cases) {
      const r = await call(c.method, c.path, { token: c.token, raw: c.raw, body: c.body, headers: c.headers });
      answers.push({ name: c.name, r });
    }
    // All at once, so one run names every bad answer.
    expect(
      answers.filter((a) => a.r.status >= 500 || a.r.status < 400).map((a) => `${a.name}: ${a.r.status} ${a.r.text}`),
    ).toEqual([]);
    for (const { name, r } of answers) {
      const c = { name };
      if (r.body?.result === 'failed' && 'code' in r.body) {
        expectFailure(r, r.status, r.body.code);
      } else {
        // The few answers with the spec's own shape (sign-in) still say failed and never leak internals.
        expect(r.body, `${c.name}: ${r.text}`).toMatchObject({ result: 'failed', description: expect.any(String) });
      }
    }
    // NUL characters are refused up front on both dialects (Postgres cannot store them).
    for (const a of answers.filter((x) => x.name.startsWith('NUL'))) {
      expect(a.r.status, a.name).toBe(400);
      expect(a.r.body.code, a.name).toBe('VALIDATION_FAILED');
    }
    expect(await counts()).toEqual(before);
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
    expect((await call('GET', '/readyz')).status).toBe(200);
  });

  it('FOUNDATION an unknown /api path answers JSON 404, never the web app', async () => {
    for (const [method, p] of [
      ['GET', '/api/no/such/thing'],
      ['GET', '/api'],
      ['GET', '/api/'],
      ['POST', '/api/no-such-endpoint'],
      ['DELETE', '/api/users'],
      ['GET', '/status/nope'],
      ['POST', '/not-api-but-post'],
    ] as const) {
      const r = await call(method, p, { token: admin.token });
      expectFailure(r, 404, 'NOT_FOUND');
      expect(r.text, p).not.toContain(INDEX_MARKER);
    }
    // Socket.IO owns /socket.io/ and answers unknown transports itself (its own shape), never the web app.
    const sio = await call('GET', '/socket.io/nope');
    expect(sio.status).toBe(400);
    expect(sio.text).not.toContain(INDEX_MARKER);
  });

  it('FOUNDATION healthz, readyz and metrics respond; metrics are Prometheus text', async () => {
    const health = await call('GET', '/healthz');
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: 'ok' });

    const ready = await call('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready', database: true });

    const res = await fetch(`${s.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(text).toMatch(/^# HELP parley_http_requests_total /m);
    expect(text).toMatch(/^# TYPE parley_http_requests_total counter$/m);
    expect(text).toMatch(/^# TYPE parley_http_request_duration_seconds histogram$/m);
    expect(text).toMatch(/^# TYPE parley_realtime_sockets gauge$/m);
    expect(text).toMatch(/^parley_http_requests_total\{method="GET",route="\/healthz",status="200"\} [1-9]\d*$/m);
    expect(text).toMatch(/^parley_relay_events_delivered \d+$/m);
    expect(text).toMatch(/^parley_relay_events_fanned_out_at_commit \d+$/m);
    expect(text).toMatch(/^parley_relay_waiting_for_predecessor \d+$/m);
    expect(text).toMatch(/^process_cpu_user_seconds_total /m);
    // Every line is a comment or `name{labels} value`.
    const sample =
      /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*",?)*\})? (-?[0-9.]+(e[+-]?\d+)?|NaN|[+-]Inf)( \d+)?$/;
    for (const line of text.split('\n').filter(Boolean)) {
      if (line.startsWith('#')) expect(line, line).toMatch(/^# (HELP|TYPE) /);
      else expect(line, line).toMatch(sample);
    }
  });

  it('FOUNDATION a non-/api unknown path returns the web app index', async () => {
    for (const p of ['/', '/tickets/42', '/settings/users?tab=agents', '/some/deep/page']) {
      const res = await fetch(`${s.url}${p}`);
      expect(res.status, p).toBe(200);
      expect(res.headers.get('content-type'), p).toMatch(/^text\/html/);
      expect(res.headers.get('cache-control'), p).toBe('no-cache');
      expect(await res.text(), p).toContain(INDEX_MARKER);
    }
  });
});

describe('HTTP pipeline without a web build', () => {
  let s: Server;
  beforeAll(async () => {
    s = await startTestServer('sqlite', { WEB_DIST: path.join(tempDir('parley-noweb-'), 'missing') });
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('FOUNDATION a non-/api path says the web app is not built (503 text) while the API still answers', async () => {
    for (const p of ['/', '/tickets/42']) {
      const res = await fetch(`${s.url}${p}`);
      expect(res.status, p).toBe(503);
      expect(res.headers.get('content-type'), p).toMatch(/^text\/plain/);
      expect(await res.text(), p).toMatch(/not built yet.*npm run build/);
    }
    const api = await apiClient(s.url)('GET', '/api/nope');
    expectFailure(api, 404, 'NOT_FOUND');
    expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
  });
});

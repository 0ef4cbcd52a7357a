import { randomBytes } from 'node:crypto';

/** One HTTP answer, parsed: the JSON body (or null), the raw text and the cookies the server set. */
export interface Answer {
  status: number;
  body: any;
  text: string;
  cookies: Record<string, string>;
}

export interface CallOptions {
  /** Sent as `Authorization: Bearer`. */
  token?: string;
  /** Sent as the Cookie header. */
  cookies?: Record<string, string>;
  origin?: string;
  /** JSON-encoded. */
  body?: unknown;
  /** Sent as is, as application/json (for broken or odd bodies). */
  raw?: string;
  headers?: Record<string, string>;
}

export type Call = (method: string, path: string, o?: CallOptions) => Promise<Answer>;

/** A JSON client for a running server, for integration tests. */
export function apiClient(base: string): Call {
  return async (method, path, o = {}) => {
    const headers: Record<string, string> = { ...o.headers };
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    if (o.cookies)
      headers.cookie = Object.entries(o.cookies)
        .map(([k, v]) => `${k}=${v}`)
        .join('; ');
    if (o.origin) headers.origin = o.origin;
    const payload = o.raw ?? (o.body === undefined ? undefined : JSON.stringify(o.body));
    if (payload !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${base}${path}`, { method, headers, body: payload });
    const text = await res.text();
    let body: unknown = null;
    try {
      body = JSON.parse(text);
    } catch {
      body = null;
    }
    const cookies: Record<string, string> = {};
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const i = pair!.indexOf('=');
      cookies[pair!.slice(0, i)] = pair!.slice(i + 1);
    }
    return { status: res.status, body, text, cookies };
  };
}

export interface SignedUp {
  company: string;
  name: string;
  username: string;
  email: string;
  password: string;
  token: string;
  refreshToken: string;
  accountId: number;
  userId: number;
}

/** A new trial account and its admin through `POST /api/signup` (any number per server, unlike setup). */
export async function signUpVia(call: Call, suffix = randomBytes(3).toString('hex')): Promise<SignedUp> {
  const input = {
    company: `Company ${suffix}`,
    name: `Admin ${suffix}`,
    username: `admin-${suffix}`,
    email: `admin-${suffix}@example.com`,
    password: 'signup password 1',
  };
  const r = await call('POST', '/api/signup', { body: input });
  if (r.status !== 200) throw new Error(`signup failed: ${r.status} ${r.text}`);
  const c = await call('POST', '/api/auth/check', { token: r.body.token });
  return {
    ...input,
    token: r.body.token,
    refreshToken: r.body.refresh_token,
    accountId: c.body.accountId,
    userId: c.body.userId,
  };
}

/** Signs in through `POST /api/auth2`; the whole answer, so tests can look at failures too. */
export const signInVia = (
  call: Call,
  client: string,
  password: unknown,
  extra: { tfa?: string; headers?: Record<string, string> } = {},
) => call('POST', '/api/auth2', { body: { client, password, tfa: extra.tfa }, headers: extra.headers });

/** An admin creates a user through `POST /api/users`; returns its id and a signed-in token. */
export async function addUserVia(
  call: Call,
  adminToken: string,
  u: { username: string; type: 'admin' | 'supervisor' | 'agent'; password?: string; name?: string; email?: string },
): Promise<{ id: number; token: string; username: string; password: string }> {
  const password = u.password ?? 'user password 1';
  const r = await call('POST', '/api/users', {
    token: adminToken,
    body: { name: u.name ?? u.username, email: u.email ?? '', ...u, password },
  });
  if (r.status !== 200) throw new Error(`create user failed: ${r.status} ${r.text}`);
  const s = await signInVia(call, u.username, password);
  if (s.status !== 200) throw new Error(`sign-in failed: ${s.status} ${s.text}`);
  return { id: r.body.id, token: s.body.token, username: u.username, password };
}

/** A unique suffix for names in one test. */
export const uniq = () => randomBytes(3).toString('hex');

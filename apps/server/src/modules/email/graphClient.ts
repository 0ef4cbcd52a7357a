import { createHash } from 'node:crypto';
import type { MailboxRow } from './mailboxes.queries.js';
import type { Secrets } from './secrets.js';

/** Where Microsoft Graph and its token endpoint are (GRAPH_BASE_URL, GRAPH_LOGIN_URL; tests: a stand-in). */
export interface GraphSettings {
  baseUrl: string;
  loginUrl: string;
}

/** A request to Graph answers within this long, or it counts as a connection failure. */
const REQUEST_TIMEOUT_MS = 15_000;
/** A raw message (`$value`) may be large: it gets longer. */
const DOWNLOAD_TIMEOUT_MS = 60_000;
/** A token is used until this long before it expires, so a request never carries one that lapses on its way. */
const TOKEN_MARGIN_MS = 5 * 60_000;

/** Graph answered with an error: its HTTP status, its own words (`error.message`) and its Retry-After. */
export class GraphError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
  }

  /** Worth trying again: throttled (429), the service's trouble (5xx), or no answer at all (status 0). */
  get transient(): boolean {
    return this.status === 0 || this.status === 429 || this.status >= 500;
  }
}

/** Retry-After in seconds or as an HTTP date, in ms from now; null when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | null {
  if (!value) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/**
 * Graph's own words of a failed answer: `{error: {code, message}}` from the API, `{error, error_description}`
 * from the token endpoint; else the status line.
 */
async function wordsOf(res: Response): Promise<string> {
  const text = await res.text().catch(() => '');
  try {
    const body = JSON.parse(text) as {
      error?: { code?: unknown; message?: unknown } | string;
      error_description?: unknown;
    };
    if (typeof body.error_description === 'string' && body.error_description) return body.error_description;
    if (body.error && typeof body.error === 'object') {
      const { message, code } = body.error;
      if (typeof message === 'string' && message) return message;
      if (typeof code === 'string' && code) return code;
    }
    if (typeof body.error === 'string' && body.error) return body.error;
  } catch {}
  return `${res.status} ${res.statusText}`.trim();
}

/** Throws a GraphError for an answer that is not 2xx. */
async function check(res: Response): Promise<Response> {
  if (res.ok) return res;
  throw new GraphError(res.status, (await wordsOf(res)).slice(0, 1000), retryAfterMs(res.headers.get('retry-after')));
}

/** A network failure or a timeout as a GraphError with no status (transient). */
function unreachable(err: unknown): GraphError {
  const e = err as { name?: string; message?: string; cause?: { message?: string; code?: string } };
  if (e?.name === 'TimeoutError') return new GraphError(0, 'Microsoft Graph did not answer in time.');
  return new GraphError(0, e?.cause?.message || e?.cause?.code || e?.message || String(err));
}

/** The app registration of a graph mailbox, its secret opened. */
export interface GraphApp {
  tenantId: string;
  clientId: string;
  clientSecret: string;
}

/** The mailbox row's app, its secret opened; null when it cannot be read with this SECRETS_KEY. */
export function graphAppOf(row: MailboxRow, secrets: Secrets | null, accountId: number): GraphApp | null {
  const clientSecret = row.graph_secret === '' ? null : (secrets?.open(accountId, row.graph_secret) ?? null);
  if (clientSecret === null) return null;
  return { tenantId: row.graph_tenant_id, clientId: row.graph_client_id, clientSecret };
}

interface CachedToken {
  token: string;
  until: number;
}

/**
 * Microsoft Graph for the node: app-only tokens by the client-credentials flow, each kept until shortly before
 * it expires (per app and secret, so a changed secret takes a new one), and requests with their timeouts.
 */
export class GraphClient {
  private readonly tokens = new Map<string, CachedToken>();

  constructor(readonly settings: GraphSettings) {}

  /** A token for the app (cached); a refusal is a GraphError with the token endpoint's words. */
  async token(app: GraphApp): Promise<string> {
    const key = createHash('sha256')
      .update(`${app.tenantId}\n${app.clientId}\n${app.clientSecret}`)
      .digest('base64url');
    const cached = this.tokens.get(key);
    if (cached && cached.until > Date.now()) return cached.token;
    const url = `${this.settings.loginUrl}/${encodeURIComponent(app.tenantId)}/oauth2/v2.0/token`;
    let res: Response;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: app.clientId,
          client_secret: app.clientSecret,
          scope: 'https://graph.microsoft.com/.default',
        }),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch (err) {
      throw unreachable(err);
    }
    await check(res);
    const body = (await res.json().catch(() => ({}))) as { access_token?: unknown; expires_in?: unknown };
    if (typeof body.access_token !== 'string' || !body.access_token)
      throw new GraphError(502, 'The token endpoint answered without an access token.');
    const lifetime = Number(body.expires_in) * 1000 || 3_600_000;
    // A short-lived token is kept for half its life, so it is still good when it is used.
    this.tokens.set(key, {
      token: body.access_token,
      until: Date.now() + Math.max(lifetime / 2, lifetime - TOKEN_MARGIN_MS),
    });
    return body.access_token;
  }

  /** Forgets the app's token (Graph said 401: it was revoked or the secret changed). */
  forget(app: GraphApp): void {
    const key = createHash('sha256')
      .update(`${app.tenantId}\n${app.clientId}\n${app.clientSecret}`)
      .digest('base64url');
    this.tokens.delete(key);
  }

  /**
   * One request to Graph with the app's token: `path` below GRAPH_BASE_URL, or a whole URL Graph gave us (a
   * delta or next link), which must lie below GRAPH_BASE_URL too. Answers the Response when 2xx, else throws
   * a GraphError with Graph's words.
   */
  async request(
    app: GraphApp,
    method: string,
    path: string,
    opts: { json?: unknown; download?: boolean } = {},
  ): Promise<Response> {
    const url = path.startsWith('http') ? path : `${this.settings.baseUrl}${path}`;
    if (!url.startsWith(`${this.settings.baseUrl}/`))
      throw new GraphError(502, 'Microsoft Graph gave a link outside GRAPH_BASE_URL.');
    const send = async () => {
      const token = await this.token(app);
      try {
        return await fetch(url, {
          method,
          headers: {
            authorization: `Bearer ${token}`,
            ...(opts.json !== undefined ? { 'content-type': 'application/json' } : {}),
          },
          ...(opts.json !== undefined ? { body: JSON.stringify(opts.json) } : {}),
          signal: AbortSignal.timeout(opts.download ? DOWNLOAD_TIMEOUT_MS : REQUEST_TIMEOUT_MS),
        });
      } catch (err) {
        throw unreachable(err);
      }
    };
    let res = await send();
    // A kept token Graph no longer takes (revoked, the app's keys rolled): once more with a new one.
    if (res.status === 401) {
      this.forget(app);
      await res.body?.cancel();
      res = await send();
      if (res.status === 401) this.forget(app);
    }
    return check(res);
  }
}

/** `/users/{address}` as a Graph path. */
export const userPath = (address: string) => `/users/${encodeURIComponent(address)}`;

/** The words of any failure: Graph's own, or the error's. */
export function graphWords(err: unknown): string {
  if (err instanceof GraphError) return err.message;
  const e = err as { message?: unknown };
  return String(e?.message ?? err).slice(0, 1000);
}

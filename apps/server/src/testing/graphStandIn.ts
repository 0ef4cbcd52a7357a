import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback stand-in for Microsoft Graph and the Microsoft identity platform (which a test cannot reach),
 * speaking their documented payloads:
 * - `POST /login/{tenant}/oauth2/v2.0/token` (client credentials): `{token_type, expires_in, access_token}`,
 *   or `{error, error_description}` with the AADSTS words;
 * - below `/v1.0`, with `Authorization: Bearer`: `GET /users/{a}`, `POST /subscriptions` (it performs the
 *   validation handshake against `notificationUrl` as Graph does: POST `?validationToken=` and the answer
 *   must be 200 text/plain with the token exactly), `PATCH`/`DELETE /subscriptions/{id}`,
 *   `GET /users/{a}/messages/{id}/$value`, `GET /users/{a}/mailFolders('Inbox')/messages/delta` (pages and a
 *   delta link), `POST /users/{a}/sendMail` (recorded; 202);
 * - errors as `{error: {code, message}}`; `fail` queues one for a route (status, body, headers).
 * `deliver` puts a mail in a user's Inbox and posts the change notification to each subscription on it.
 */
export interface StandInApp {
  tenantId: string;
  clientId: string;
  clientSecret: string;
}

interface StoredMessage {
  id: string;
  user: string;
  mime: string;
  internetMessageId: string;
  isRead: boolean;
  receivedDateTime: string;
  seq: number;
}

export interface StandInSubscription {
  id: string;
  resource: string;
  notificationUrl: string;
  clientState: string;
  changeType: string;
  expirationDateTime: string;
}

export interface SentMail {
  user: string;
  body: {
    message: {
      subject: string;
      body: { contentType: string; content: string };
      toRecipients: { emailAddress: { address: string } }[];
      ccRecipients?: { emailAddress: { address: string } }[];
      attachments?: { name: string; contentBytes: string }[];
      internetMessageHeaders?: { name: string; value: string }[];
    };
    saveToSentItems?: boolean;
  };
  at: number;
}

interface Failure {
  /** `token`, `users`, `subscriptions`, `value`, `delta` or `sendMail`. */
  route: string;
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

const DELTA_PAGE = 10;

const graphError = (code: string, message: string) => ({
  error: { code, message, innerError: { date: new Date().toISOString(), 'request-id': randomUUID() } },
});

async function readBody(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startGraphStandIn(app: StandInApp) {
  const users = new Map<string, { displayName: string; mail: string }>();
  const messages: StoredMessage[] = [];
  const subscriptions = new Map<string, StandInSubscription>();
  const sent: SentMail[] = [];
  const failures: Failure[] = [];
  /** Every request as `METHOD path` with its time, for the tests' order and timing checks. */
  const requests: { route: string; method: string; path: string; at: number }[] = [];
  const tokens = new Set<string>();
  let tokenCount = 0;
  let seq = 0;
  let url = '';

  const userOf = (s: string) => users.get(decodeURIComponent(s).toLowerCase());

  async function validate(notificationUrl: string): Promise<boolean> {
    const token = `Validation: Testing client application reachability for subscription Request-Id: ${randomUUID()}`;
    const u = `${notificationUrl}${notificationUrl.includes('?') ? '&' : '?'}validationToken=${encodeURIComponent(token)}`;
    try {
      const res = await fetch(u, {
        method: 'POST',
        headers: { 'content-type': 'text/plain; charset=utf-8' },
        body: '',
        signal: AbortSignal.timeout(10_000),
      });
      const text = await res.text();
      return res.status === 200 && (res.headers.get('content-type') ?? '').startsWith('text/plain') && text === token;
    } catch {
      return false;
    }
  }

  /** Posts a change notification body to a URL as Graph does; answers the status. */
  async function post(notificationUrl: string, body: unknown): Promise<number> {
    const res = await fetch(notificationUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify(body),
    });
    await res.text();
    return res.status;
  }

  const notificationOf = (s: StandInSubscription, m: StoredMessage, clientState = s.clientState) => ({
    value: [
      {
        subscriptionId: s.id,
        subscriptionExpirationDateTime: s.expirationDateTime,
        changeType: 'created',
        resource: `Users/${m.user}/Messages/${m.id}`,
        resourceData: {
          '@odata.type': '#Microsoft.Graph.Message',
          '@odata.id': `Users/${m.user}/Messages/${m.id}`,
          '@odata.etag': `W/"${randomBytes(8).toString('hex')}"`,
          id: m.id,
        },
        clientState,
        tenantId: app.tenantId,
      },
    ],
  });

  const subscriptionsOf = (user: string) =>
    [...subscriptions.values()].filter((s) =>
      s.resource.toLowerCase().startsWith(`users/${user.toLowerCase()}/mailfolders('inbox')/messages`),
    );

  function handle(req: http.IncomingMessage, res: http.ServerResponse, raw: string) {
    const u = new URL(req.url ?? '/', url);
    const path = decodeURIComponent(u.pathname);
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
      res.end(body === undefined ? '' : JSON.stringify(body));
    };
    const route = (r: string) => {
      requests.push({ route: r, method: req.method ?? '', path: `${path}${u.search}`, at: Date.now() });
      const i = failures.findIndex((f) => f.route === r);
      if (i < 0) return false;
      const [f] = failures.splice(i, 1);
      json(f!.status, f!.body ?? graphError('ServiceUnavailable', 'The service is unavailable.'), f!.headers);
      return true;
    };

    const login = /^\/login\/([^/]+)\/oauth2\/v2\.0\/token$/.exec(path);
    if (login && req.method === 'POST') {
      if (route('token')) return;
      const form = new URLSearchParams(raw);
      if (login[1] !== app.tenantId)
        return json(400, {
          error: 'invalid_request',
          error_description: `AADSTS90002: Tenant '${login[1]}' not found. Check to make sure you have the correct tenant ID and are signing into the correct cloud.`,
        });
      if (
        form.get('grant_type') !== 'client_credentials' ||
        form.get('scope') !== 'https://graph.microsoft.com/.default'
      )
        return json(400, {
          error: 'invalid_request',
          error_description: 'AADSTS900144: The request body must contain the following parameter: scope.',
        });
      if (form.get('client_id') !== app.clientId)
        return json(400, {
          error: 'unauthorized_client',
          error_description: `AADSTS700016: Application with identifier '${form.get('client_id')}' was not found in the directory.`,
        });
      if (form.get('client_secret') !== app.clientSecret)
        return json(401, {
          error: 'invalid_client',
          error_description: `AADSTS7000215: Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID, for a secret added to app '${app.clientId}'.`,
        });
      tokenCount++;
      const token = randomBytes(24).toString('base64url');
      tokens.add(token);
      return json(200, { token_type: 'Bearer', expires_in: 3599, ext_expires_in: 3599, access_token: token });
    }

    if (!path.startsWith('/v1.0/'))
      return json(404, graphError('BadRequest', `Resource not found for the segment '${path}'.`));
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!bearer || !tokens.has(bearer))
      return json(
        401,
        graphError(
          'InvalidAuthenticationToken',
          bearer ? 'Lifetime validation failed, the token is expired.' : 'Access token is empty.',
        ),
      );
    const p = path.slice('/v1.0'.length);

    let m = /^\/users\/([^/]+)$/.exec(p);
    if (m && req.method === 'GET') {
      if (route('users')) return;
      const user = userOf(m[1]!);
      if (!user)
        return json(
          404,
          graphError(
            'Request_ResourceNotFound',
            `Resource '${m[1]}' does not exist or one of its queried reference-property objects are not present.`,
          ),
        );
      return json(200, {
        id: randomUUID(),
        displayName: user.displayName,
        mail: user.mail,
        userPrincipalName: user.mail,
      });
    }

    if (p === '/subscriptions' && req.method === 'POST') {
      if (route('subscriptions')) return;
      const body = JSON.parse(raw || '{}') as Partial<StandInSubscription>;
      if (!body.notificationUrl || !body.resource || !body.changeType || !body.expirationDateTime)
        return json(400, graphError('InvalidRequest', 'Missing required property in subscription.'));
      if ((body.clientState ?? '').length > 128)
        return json(400, graphError('InvalidRequest', 'clientState must not exceed 128 characters.'));
      const user = /^users\/([^/]+)\//i.exec(body.resource)?.[1];
      if (!user || !userOf(user))
        return json(
          404,
          graphError(
            'ResourceNotFound',
            `The specified object was not found in the store., The process failed to get the correct properties.`,
          ),
        );
      return void validate(body.notificationUrl).then((ok) => {
        if (!ok)
          return json(
            400,
            graphError(
              'InvalidRequest',
              'Subscription validation request failed. Response must exactly match validationToken query parameter.',
            ),
          );
        const s: StandInSubscription = {
          id: randomUUID(),
          resource: body.resource!,
          notificationUrl: body.notificationUrl!,
          clientState: body.clientState ?? '',
          changeType: body.changeType!,
          expirationDateTime: body.expirationDateTime!,
        };
        subscriptions.set(s.id, s);
        json(201, {
          '@odata.context': `${url}/v1.0/$metadata#subscriptions/$entity`,
          ...s,
          applicationId: app.clientId,
        });
      });
    }

    m = /^\/subscriptions\/([^/]+)$/.exec(p);
    if (m && (req.method === 'PATCH' || req.method === 'DELETE')) {
      if (route('subscriptions')) return;
      const s = subscriptions.get(m[1]!);
      if (!s) return json(404, graphError('ResourceNotFound', `The object was not found.`));
      if (req.method === 'DELETE') {
        subscriptions.delete(s.id);
        res.writeHead(204);
        return res.end();
      }
      const body = JSON.parse(raw || '{}') as { expirationDateTime?: string };
      if (body.expirationDateTime) s.expirationDateTime = body.expirationDateTime;
      return json(200, s);
    }

    m = /^\/users\/([^/]+)\/messages\/([^/]+)\/\$value$/.exec(p);
    if (m && req.method === 'GET') {
      if (route('value')) return;
      const [, who, id] = m;
      const found = messages.find(
        (x) => x.id === id && x.user.toLowerCase() === decodeURIComponent(who!).toLowerCase(),
      );
      if (!found) return json(404, graphError('ErrorItemNotFound', 'The specified object was not found in the store.'));
      res.writeHead(200, { 'content-type': 'text/plain' });
      return res.end(found.mime);
    }

    m = /^\/users\/([^/]+)\/mailFolders\('Inbox'\)\/messages\/delta$/i.exec(p);
    if (m && req.method === 'GET') {
      if (route('delta')) return;
      const user = decodeURIComponent(m[1]!).toLowerCase();
      const after = Number(u.searchParams.get('$deltatoken') ?? 0);
      const skip = Number(u.searchParams.get('$skiptoken') ?? 0);
      const upTo = Number(u.searchParams.get('upto') ?? seq);
      const list = messages.filter((x) => x.user.toLowerCase() === user && x.seq > after && x.seq <= upTo);
      const page = list.slice(skip, skip + DELTA_PAGE);
      const base = `${url}/v1.0/users/${encodeURIComponent(user)}/mailFolders('Inbox')/messages/delta`;
      const more = skip + DELTA_PAGE < list.length;
      return json(200, {
        '@odata.context': `${url}/v1.0/$metadata#Collection(message)`,
        value: page.map((x) => ({
          '@odata.type': '#microsoft.graph.message',
          id: x.id,
          internetMessageId: x.internetMessageId,
          isRead: x.isRead,
          receivedDateTime: x.receivedDateTime,
        })),
        ...(more
          ? { '@odata.nextLink': `${base}?$deltatoken=${after}&$skiptoken=${skip + DELTA_PAGE}&upto=${upTo}` }
          : { '@odata.deltaLink': `${base}?$deltatoken=${upTo}` }),
      });
    }

    m = /^\/users\/([^/]+)\/sendMail$/.exec(p);
    if (m && req.method === 'POST') {
      if (route('sendMail')) return;
      const user = userOf(m[1]!);
      if (!user)
        return json(
          404,
          graphError('ErrorInvalidUser', `The requested user '${decodeURIComponent(m[1]!)}' is invalid.`),
        );
      let body: SentMail['body'];
      try {
        body = JSON.parse(raw);
      } catch {
        return json(400, graphError('RequestBodyRead', 'Invalid JSON in the request body.'));
      }
      if (!body?.message?.toRecipients?.length)
        return json(
          400,
          graphError('ErrorInvalidRecipients', 'At least one recipient is not valid., Recipient is missing.'),
        );
      const bad = (body.message.internetMessageHeaders ?? []).find((h) => !/^x-/i.test(h.name));
      if (bad)
        return json(
          400,
          graphError(
            'InvalidInternetMessageHeader',
            `The internet message header name '${bad.name}' should start with 'x-' or 'X-'.`,
          ),
        );
      sent.push({ user: user.mail, body, at: Date.now() });
      res.writeHead(202);
      return res.end();
    }

    json(400, graphError('BadRequest', `Unsupported request: ${req.method} ${p}`));
  }

  const server = http.createServer((req, res) => {
    readBody(req)
      .then((raw) => handle(req, res, raw))
      .catch((err) => {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify(graphError('InternalServerError', String(err))));
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    baseUrl: `${url}/v1.0`,
    loginUrl: `${url}/login`,
    subscriptions,
    sent,
    requests,
    failures,
    get tokenCount() {
      return tokenCount;
    },
    addUser(mail: string, displayName = mail) {
      users.set(mail.toLowerCase(), { mail, displayName });
    },
    /** Queues one failure answer for the next request to `route`. */
    fail(route: Failure['route'], status: number, body?: unknown, headers?: Record<string, string>) {
      failures.push({ route, status, body, headers });
    },
    graphError,
    /**
     * A mail arriving in the user's Inbox: kept (its `$value` is `mime`), and by default notified to every
     * subscription on that Inbox. Answers its Graph id.
     */
    async deliver(user: string, mime: string, o: { notify?: boolean; isRead?: boolean } = {}) {
      const internetMessageId = /^Message-ID:\s*(<[^>]+>)/im.exec(mime)?.[1] ?? `<${randomUUID()}@standin>`;
      const msg: StoredMessage = {
        id: `AAMkAD${randomBytes(12).toString('base64url')}=`,
        user,
        mime,
        internetMessageId,
        isRead: o.isRead ?? false,
        receivedDateTime: new Date().toISOString(),
        seq: ++seq,
      };
      messages.push(msg);
      if (o.notify ?? true)
        for (const s of subscriptionsOf(user)) await post(s.notificationUrl, notificationOf(s, msg));
      return msg.id;
    },
    /** The notification of a delivered message as Graph would post it (clientState overridable), for replays. */
    notificationFor(subscriptionId: string, graphId: string, clientState?: string) {
      const s = subscriptions.get(subscriptionId)!;
      const msg = messages.find((x) => x.id === graphId)!;
      return notificationOf(s, msg, clientState);
    },
    post,
    subscriptionsOf,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type GraphStandIn = Awaited<ReturnType<typeof startGraphStandIn>>;

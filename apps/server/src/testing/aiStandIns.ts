import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a stand-in received. */
export interface StandInRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  body: any;
}

/** What the next request gets instead of a normal answer. */
export type StandInFault =
  | { status: 401 | 403 | 400 | 500 | 503 }
  | { status: 429; retryAfter?: string }
  | { slowMs: number }
  | { garbage: true };

async function readBody(req: http.IncomingMessage): Promise<string> {
  let body = '';
  for await (const c of req) body += c;
  return body;
}

async function listen(server: http.Server) {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    host: `127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const json = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  if (res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
};

const openaiError = (message: string, type: string, code: string | null) => ({
  error: { message, type, param: null, code },
});

/**
 * An OpenAI-compatible API on loopback, speaking its shapes: `POST /v1/chat/completions` answers a
 * `chat.completion` (id, object, created, model, choices[{index, message{role, content}, finish_reason}],
 * usage), `POST /v1/embeddings` a list of `embedding` objects. Without the right `Authorization: Bearer` it
 * answers 401 `invalid_api_key` like the real one. `faults` queues what the next requests get instead: 401,
 * 429 (with Retry-After), 500, a slow answer (for timeouts) or a body that is not JSON.
 *
 * The default answer: a translation request (the system message asks for a JSON array) gets `[target] text`
 * for each string; anything else `Suggested: <the user's message>` (so a test sees what was sent).
 */
export async function startOpenAiStandIn(opts: { key?: string } = {}) {
  const got: StandInRequest[] = [];
  const faults: StandInFault[] = [];
  let reply: ((body: any) => string) | null = null;
  const server = http.createServer(async (req, res) => {
    const raw = await readBody(req);
    let body: any = null;
    try {
      body = JSON.parse(raw);
    } catch {}
    got.push({ method: req.method ?? '', path: req.url ?? '', authorization: req.headers.authorization, body });
    const fault = faults.shift();
    if (fault && 'slowMs' in fault) await new Promise((r) => setTimeout(r, fault.slowMs));
    if (fault && 'garbage' in fault) return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>');
    if (fault && 'status' in fault) {
      if (fault.status === 401 || fault.status === 403)
        return json(
          res,
          fault.status,
          openaiError('Incorrect API key provided: sk-***.', 'invalid_request_error', 'invalid_api_key'),
        );
      if (fault.status === 429)
        return json(
          res,
          429,
          openaiError('Rate limit reached for requests.', 'requests', 'rate_limit_exceeded'),
          fault.retryAfter === undefined ? {} : { 'retry-after': fault.retryAfter },
        );
      return json(
        res,
        fault.status,
        openaiError('The server had an error while processing your request.', 'server_error', null),
      );
    }
    if (opts.key !== undefined && req.headers.authorization !== `Bearer ${opts.key}`)
      return json(res, 401, openaiError('Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key'));
    if (req.method === 'POST' && req.url === '/v1/chat/completions') {
      if (!body?.model || !Array.isArray(body.messages))
        return json(res, 400, openaiError("'messages' is a required property", 'invalid_request_error', null));
      const system = body.messages.find((m: any) => m.role === 'system')?.content ?? '';
      const user = [...body.messages].reverse().find((m: any) => m.role === 'user')?.content ?? '';
      let content: string;
      if (reply) content = reply(body);
      else if (system.startsWith('Translate each string')) {
        const target = /code "([^"]+)"\./.exec(system.slice(system.indexOf('into')))?.[1] ?? '?';
        content = JSON.stringify((JSON.parse(user) as string[]).map((t) => `[${target}] ${t}`));
      } else content = `Suggested: ${user}`;
      return json(res, 200, {
        id: `chatcmpl-${got.length}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content }, logprobs: null, finish_reason: 'stop' }],
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      });
    }
    if (req.method === 'POST' && req.url === '/v1/embeddings') {
      const input: string[] = Array.isArray(body?.input) ? body.input : [String(body?.input ?? '')];
      return json(res, 200, {
        object: 'list',
        model: body?.model,
        data: input.map((t, index) => ({ object: 'embedding', index, embedding: [t.length, 0.5, -0.25] })),
        usage: { prompt_tokens: 1, total_tokens: 1 },
      });
    }
    json(res, 404, openaiError(`Invalid URL (${req.method} ${req.url})`, 'invalid_request_error', null));
  });
  const l = await listen(server);
  return {
    ...l,
    got,
    faults,
    /** Sets what chat completions answer (null: the default). */
    answerWith(fn: ((body: any) => string) | null) {
      reply = fn;
    },
    baseUrl: `http://127.0.0.1:${l.port}/v1`,
  };
}

/**
 * A LibreTranslate server on loopback: `POST /translate` with `q` a string or an array (answers
 * `translatedText` the same way, `[target] text`), `GET /languages`. With `key` set, a missing or wrong
 * `api_key` gets 403 `{error}` like the real one; an unknown target 400. `faults` queues 400, 403, 429, 500,
 * a slow answer or garbage for the next requests.
 */
export async function startLibreTranslateStandIn(opts: { key?: string } = {}) {
  const got: StandInRequest[] = [];
  const faults: StandInFault[] = [];
  const languages = ['en', 'ms', 'de', 'fr', 'es', 'id', 'zh'];
  const server = http.createServer(async (req, res) => {
    const raw = await readBody(req);
    let body: any = null;
    try {
      body = JSON.parse(raw);
    } catch {}
    got.push({ method: req.method ?? '', path: req.url ?? '', authorization: req.headers.authorization, body });
    if (req.method === 'GET' && req.url === '/languages')
      return json(
        res,
        200,
        languages.map((code) => ({ code, name: code, targets: languages.filter((l) => l !== code) })),
      );
    const fault = faults.shift();
    if (fault && 'slowMs' in fault) await new Promise((r) => setTimeout(r, fault.slowMs));
    if (fault && 'garbage' in fault) return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>');
    if (fault && 'status' in fault) {
      const messages: Record<number, string> = {
        400: 'Invalid request: missing q parameter',
        401: 'Invalid API key',
        403: 'Invalid API key',
        429: 'Too many request limits violation',
        500: 'Internal error',
        503: 'Service unavailable',
      };
      const headers = fault.status === 429 && fault.retryAfter ? { 'retry-after': fault.retryAfter } : undefined;
      return json(res, fault.status, { error: messages[fault.status] }, headers);
    }
    if (req.method !== 'POST' || req.url !== '/translate') return json(res, 404, { error: 'Not Found' });
    if (opts.key !== undefined && body?.api_key !== opts.key) return json(res, 403, { error: 'Invalid API key' });
    if (body?.q === undefined) return json(res, 400, { error: 'Invalid request: missing q parameter' });
    if (!languages.includes(body.target)) return json(res, 400, { error: `${body.target} is not supported` });
    const tr = (t: string) => `[${body.target}] ${t}`;
    json(res, 200, {
      translatedText: Array.isArray(body.q) ? body.q.map(tr) : tr(body.q),
      ...(body.source === 'auto'
        ? {
            detectedLanguage: Array.isArray(body.q)
              ? body.q.map(() => ({ confidence: 90, language: 'en' }))
              : { confidence: 90, language: 'en' },
          }
        : {}),
    });
  });
  const l = await listen(server);
  return { ...l, got, faults, url: `http://127.0.0.1:${l.port}` };
}

import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import {
  type AiAnalysis,
  ErrorCode,
  AI_SETTINGS_STRINGS as S,
  WAUCHAT_TYPE_NAMES,
  type WauchatType,
} from '@parley/contracts';
import { AppError } from '../../platform/http/errors.js';
import type { Translator } from '../messages/index.js';
import { type AllowedPushHost, isPrivateAddress, publicOnlyLookup } from '../notifications/pushEndpoints.js';
import type { AiProvider } from './provider.js';

/** A `host` or `host:port` the operator allows besides public https URLs (AI_ALLOWED_HOSTS). */
export type AllowedModelHost = AllowedPushHost;

/** Where and how an account's OpenAI-compatible API is reached. */
export interface ModelSettings {
  /** Like `https://api.openai.com/v1` or `http://localhost:11434/v1`: `/chat/completions` is added to it. */
  baseUrl: string;
  model: string;
  /** Sent as `Authorization: Bearer`; '' sends none (a local model). Never logged, never in an error. */
  apiKey: string;
  timeoutMs: number;
  allowed: readonly AllowedModelHost[];
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** The largest answer body read from a model (a chat completion is a few kB). */
const MAX_ANSWER_BYTES = 1_000_000;

const isAllowed = (u: URL, allowed: readonly AllowedModelHost[]) =>
  allowed.some((a) => a.host === u.hostname && a.port === u.port);

/**
 * Why a base URL is refused, or null. https to a public host, or http(s) to a host of AI_ALLOWED_HOSTS (a local
 * Ollama). A literal private address or `localhost` is refused here; a name is checked again at each connection
 * (`publicOnlyLookup`), so one that resolves to a private address is never connected to. The same rule as
 * webhooks' (WEBHOOK_ALLOWED_HOSTS): an account's setting must not reach into the server's network.
 */
export function modelUrlProblem(raw: string, allowed: readonly AllowedModelHost[]): string | null {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return S.badUrl;
  }
  if ((u.protocol !== 'https:' && u.protocol !== 'http:') || u.username || u.password || !u.hostname) return S.badUrl;
  if (u.search || u.hash) return S.badUrl;
  if (isAllowed(u, allowed)) return null;
  if (u.protocol !== 'https:') return S.httpsOnly;
  const host = u.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (net.isIP(host)) return isPrivateAddress(host) ? S.privateAddress : null;
  if (host === 'localhost' || host.endsWith('.localhost') || !host.includes('.')) return S.privateAddress;
  return null;
}

const publicAgent = new https.Agent({ keepAlive: true, lookup: publicOnlyLookup as never });

interface RawAnswer {
  status: number;
  retryAfter: string | undefined;
  text: string;
}

/**
 * POSTs JSON to the model and reads the answer, all within `timeoutMs` (connecting, waiting and reading: a
 * model that trickles its answer is cut too). Rejects with a message that names neither the URL's secrets,
 * the key nor the texts sent.
 */
function postJson(url: URL, apiKey: string, body: unknown, o: ModelSettings): Promise<RawAnswer> {
  const trusted = isAllowed(url, o.allowed);
  if (!trusted && url.protocol !== 'https:')
    return Promise.reject(new AppError(400, ErrorCode.validation, S.httpsOnly));
  const payload = JSON.stringify(body);
  const send = url.protocol === 'https:' ? https.request : http.request;
  return new Promise((resolve, reject) => {
    let done = false;
    const finish = (err: Error | null, value?: RawAnswer) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(value!);
    };
    const req = send(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          'content-length': Buffer.byteLength(payload),
          ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
        },
        ...(trusted ? {} : { agent: publicAgent }),
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_ANSWER_BYTES) {
            req.destroy();
            finish(new AppError(502, ErrorCode.internal, S.badAnswer));
          } else chunks.push(c);
        });
        res.on('end', () =>
          finish(null, {
            status: res.statusCode ?? 0,
            retryAfter: res.headers['retry-after'] as string | undefined,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', () => finish(new AppError(502, ErrorCode.internal, S.failed('no answer'))));
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      finish(new AppError(502, ErrorCode.internal, S.timedOut(Math.round(o.timeoutMs / 100) / 10)));
    }, o.timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) =>
      finish(
        new AppError(
          502,
          ErrorCode.internal,
          err.code === 'EPUSHADDRESS' ? S.privateAddress : S.failed(err.code ?? 'no answer'),
        ),
      ),
    );
    req.end(payload);
  });
}

/** Seconds of a Retry-After header (seconds or an HTTP date), or null when absent or unreadable. */
export function retryAfterSeconds(h: string | undefined, now = Date.now()): number | null {
  if (!h) return null;
  if (/^\d+$/.test(h.trim())) return Math.min(Number(h.trim()), 86_400);
  const at = Date.parse(h);
  return Number.isNaN(at) ? null : Math.max(0, Math.min(Math.ceil((at - now) / 1000), 86_400));
}

/** The clear error for a model's non-2xx status: the key refused, rate limited, or failed (always a 502/429). */
function statusError(a: RawAnswer): AppError {
  if (a.status === 401 || a.status === 403) return new AppError(502, 'AI_KEY_REFUSED', S.refused);
  if (a.status === 429) {
    return new AppError(429, 'AI_RATE_LIMITED', S.rateLimited(retryAfterSeconds(a.retryAfter)));
  }
  return new AppError(502, ErrorCode.internal, S.failed(a.status));
}

const endpoint = (base: string, path: string) => new URL(`${base.replace(/\/+$/, '')}/${path}`);

/** A client of one OpenAI-compatible API: chat completions and embeddings. */
export interface ModelClient {
  readonly model: string;
  chat(messages: ChatMessage[], opts?: { temperature?: number; maxTokens?: number }): Promise<string>;
  embed(texts: string[]): Promise<number[][]>;
}

export function modelClient(o: ModelSettings): ModelClient {
  return {
    model: o.model,
    /** `POST {base}/chat/completions`; answers `choices[0].message.content`, trimmed. */
    async chat(messages, opts = {}) {
      const a = await postJson(
        endpoint(o.baseUrl, 'chat/completions'),
        o.apiKey,
        {
          model: o.model,
          messages,
          temperature: opts.temperature ?? 0.3,
          ...(opts.maxTokens ? { max_tokens: opts.maxTokens } : {}),
        },
        o,
      );
      if (a.status < 200 || a.status >= 300) throw statusError(a);
      let body: { choices?: { message?: { content?: unknown } }[] } | null = null;
      try {
        body = JSON.parse(a.text);
      } catch {}
      const content = body?.choices?.[0]?.message?.content;
      if (typeof content !== 'string' || !content.trim()) throw new AppError(502, ErrorCode.internal, S.badAnswer);
      return content.trim();
    },
    /** `POST {base}/embeddings`; answers one vector per text, in order. */
    async embed(texts) {
      const a = await postJson(endpoint(o.baseUrl, 'embeddings'), o.apiKey, { model: o.model, input: texts }, o);
      if (a.status < 200 || a.status >= 300) throw statusError(a);
      let body: { data?: { index?: number; embedding?: unknown }[] } | null = null;
      try {
        body = JSON.parse(a.text);
      } catch {}
      const rows = [...(body?.data ?? [])].sort((x, y) => (x.index ?? 0) - (y.index ?? 0));
      if (rows.length !== texts.length || !rows.every((r) => Array.isArray(r.embedding)))
        throw new AppError(502, ErrorCode.internal, S.badAnswer);
      return rows.map((r) => (r.embedding as unknown[]).map(Number));
    },
  };
}

const HINT_SYSTEM =
  'You help a customer-support agent. Read the customer message and answer with one short next best action for the agent (one sentence, at most 25 words, no preamble, no quotes).';

/** AI-01, AI-06, AI-09: an OpenAI-compatible model as a hints provider; its hint's confidence is 1. */
export function openaiProvider(client: ModelClient): AiProvider {
  return {
    engine: 'openai',
    async hint(req) {
      const text = req.translation || req.text;
      const recommendation = await client.chat(
        [
          { role: 'system', content: HINT_SYSTEM },
          { role: 'user', content: `Channel: ${req.channel}\nCustomer message:\n${text}` },
        ],
        { temperature: 0.2, maxTokens: 120 },
      );
      return { recommendation: recommendation.slice(0, 2_000), confidence: 1, engine: 'openai', cues: [] };
    },
  };
}

const REWRITE_ASK: Record<WauchatType, string> = {
  alternative: 'Rewrite the agent draft below another way, keeping its meaning and facts.',
  personality:
    'Rewrite the agent draft below to suit the customer’s style as the message shows it (brief for a direct writer, warm for a friendly one, calm and reassuring for an anxious one), keeping its facts.',
  advocacy:
    'Rewrite the agent draft below so the agent clearly advocates for the customer: shows they are on the customer’s side and what they will do for them, keeping its facts.',
  forwardresolution:
    'Rewrite the agent draft below so it moves the conversation toward a resolution: a concrete next step and what the customer needs to do, if anything.',
  anchor:
    'Rewrite the agent draft below so it sets clear expectations: what will happen, by when, and what the customer will hear next. Do not invent dates or promises the draft does not make.',
};

/**
 * AI-04: a rewrite of an agent's draft of the kind asked. The draft is sent as the user's message, apart from
 * the instructions, and the answer is the rewritten text only.
 */
export async function rewriteDraft(
  client: ModelClient,
  type: WauchatType,
  draft: string,
  reading?: AiAnalysis,
): Promise<string> {
  const style =
    type === 'personality' && reading?.personality.value ? ` The customer's style: ${reading.personality.value}.` : '';
  const text = await client.chat(
    [
      {
        role: 'system',
        content: `You help a customer-support agent (${WAUCHAT_TYPE_NAMES[type]}). ${REWRITE_ASK[type]}${style} Answer with the new text only, in the draft's language, no preamble, no quotes.`,
      },
      { role: 'user', content: draft },
    ],
    { temperature: 0.5, maxTokens: 600 },
  );
  return text.slice(0, 4_000);
}

/**
 * MSG-49: the model as a Translator. All texts go in one call as a JSON array, and the answer must be a JSON
 * array of the same length (else 502 "answered with nothing usable", never a half translation).
 */
export function openaiTranslator(client: ModelClient): Translator {
  return {
    async translate(texts, target, source) {
      const from = source && source !== 'auto' ? ` from the language with code "${source}"` : '';
      const out = await client.chat(
        [
          {
            role: 'system',
            content: `Translate each string of the JSON array the user sends${from} into the language with code "${target}". Answer with a JSON array of the translations only, same length and order, nothing else.`,
          },
          { role: 'user', content: JSON.stringify(texts) },
        ],
        { temperature: 0 },
      );
      let parsed: unknown = null;
      try {
        parsed = JSON.parse(out.replace(/^```(?:json)?\s*|\s*```$/g, ''));
      } catch {}
      if (!Array.isArray(parsed) || parsed.length !== texts.length || !parsed.every((t) => typeof t === 'string'))
        throw new AppError(502, ErrorCode.internal, S.badAnswer);
      return parsed as string[];
    },
  };
}

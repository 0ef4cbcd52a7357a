import { ErrorCode, TRANSLATE_STRINGS as T } from '@parley/contracts';
import type { DB } from '../../platform/db/db.js';
import { AppError } from '../../platform/http/errors.js';

/** MSG-49, MSG-50: turns texts into another language. */
export interface Translator {
  translate(texts: string[], target: string, source?: string): Promise<string[]>;
}

/** Each account's translator (its language model, or the installation's server), or null when it has none. */
export interface Translators {
  forAccount(db: DB, accountId: number): Promise<Translator | null>;
}

/** Seconds of a Retry-After header (seconds or an HTTP date), or null. */
function retryAfter(h: string | null): number | null {
  if (!h) return null;
  if (/^\d+$/.test(h.trim())) return Math.min(Number(h.trim()), 86_400);
  const at = Date.parse(h);
  return Number.isNaN(at) ? null : Math.max(0, Math.min(Math.ceil((at - Date.now()) / 1000), 86_400));
}

/**
 * A LibreTranslate-compatible HTTP provider (`POST {url}/translate` with q, source, target, format, api_key),
 * for a self-hosted server. Its failures are clear and never carry the texts: 400 (a language it lacks) and 403
 * (the key) as 502 with what it means, 429 as 429 with its Retry-After, anything else or no answer within
 * `timeoutMs` as 502.
 */
export function httpTranslator(url: string, apiKey?: string, timeoutMs = 15_000): Translator {
  return {
    async translate(texts, target, source) {
      let res: Response | null = null;
      let timedOut = false;
      try {
        res = await fetch(`${url.replace(/\/$/, '')}/translate`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify({ q: texts, source: source || 'auto', target, format: 'text', api_key: apiKey }),
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (err) {
        timedOut = (err as Error).name === 'TimeoutError';
      }
      if (!res) {
        throw new AppError(
          502,
          ErrorCode.internal,
          timedOut ? T.timedOut(Math.round(timeoutMs / 100) / 10) : T.failed('no answer'),
        );
      }
      if (res.status === 429)
        throw new AppError(429, 'TRANSLATE_RATE_LIMITED', T.rateLimited(retryAfter(res.headers.get('retry-after'))));
      if (res.status === 403 || res.status === 401) throw new AppError(502, 'TRANSLATE_KEY_REFUSED', T.refusedKey);
      if (res.status === 400) throw new AppError(502, 'TRANSLATE_REFUSED', T.badRequest);
      if (!res.ok) throw new AppError(502, ErrorCode.internal, T.failed(res.status));
      const body = (await res.json().catch(() => null)) as { translatedText?: unknown } | null;
      const raw = body?.translatedText;
      const out = Array.isArray(raw) ? raw : typeof raw === 'string' ? [raw] : [];
      if (out.length !== texts.length || !out.every((t) => typeof t === 'string'))
        throw new AppError(502, ErrorCode.internal, T.badAnswer);
      return out as string[];
    },
  };
}

import { ErrorCode } from '@parley/contracts';
import { AppError } from '../../platform/http/errors.js';

/** MSG-49, MSG-50: turns texts into another language. The AI issue plugs a real one in. */
export interface Translator {
  translate(texts: string[], target: string, source?: string): Promise<string[]>;
}

/**
 * A LibreTranslate-compatible HTTP provider (`POST {url}/translate` with q, source, target, format), for a
 * self-hosted server. A provider that fails answers 502 with its status, never the texts.
 */
export function httpTranslator(url: string, apiKey?: string): Translator {
  return {
    async translate(texts, target, source) {
      const res = await fetch(`${url.replace(/\/$/, '')}/translate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ q: texts, source: source || 'auto', target, format: 'text', api_key: apiKey }),
        signal: AbortSignal.timeout(15_000),
      }).catch(() => null);
      if (!res?.ok)
        throw new AppError(502, ErrorCode.internal, `The translation service failed (${res?.status ?? 'no answer'}).`);
      const body = (await res.json()) as { translatedText?: string | string[] };
      const out = Array.isArray(body.translatedText) ? body.translatedText : [body.translatedText ?? ''];
      if (out.length !== texts.length)
        throw new AppError(502, ErrorCode.internal, 'The translation service answered badly.');
      return out.map(String);
    },
  };
}

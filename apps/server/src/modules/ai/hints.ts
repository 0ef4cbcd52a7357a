import { AI_STRINGS, ErrorCode } from '@parley/contracts';
import { AppError } from '../../platform/http/errors.js';
import type { AiProvider } from './provider.js';

/** What a provider is asked about one message (AI-06). */
export interface HintRequest {
  text: string;
  translation: string;
  channel: string;
  messageId: number;
}

/**
 * An HTTP provider: `POST {url}` with `{ text, translation, channel, messageId }` (and `Authorization:
 * Bearer {apiKey}` when set) answering `{ recommendation, confidence? }`. A provider that fails answers 502
 * with its status, never the message text.
 */
export function httpHints(url: string, apiKey?: string): AiProvider {
  return {
    engine: 'external',
    async hint({ text, translation, channel, messageId }) {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
        body: JSON.stringify({ text, translation, channel, messageId }),
        signal: AbortSignal.timeout(15_000),
      }).catch(() => null);
      if (!res?.ok) throw new AppError(502, ErrorCode.internal, `${AI_STRINGS.failed} (${res?.status ?? 'no answer'})`);
      const body = (await res.json().catch(() => null)) as { recommendation?: unknown; confidence?: unknown } | null;
      if (typeof body?.recommendation !== 'string') throw new AppError(502, ErrorCode.internal, AI_STRINGS.failed);
      const c =
        typeof body.confidence === 'number' && body.confidence >= 0 && body.confidence <= 1 ? body.confidence : 1;
      return { recommendation: body.recommendation.slice(0, 2_000), confidence: c, engine: 'external', cues: [] };
    },
  };
}

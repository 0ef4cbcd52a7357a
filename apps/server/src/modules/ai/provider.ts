import type { AiEngine, AiHint } from '@parley/contracts';
import type { DB } from '../../platform/db/db.js';
import type { HintRequest } from './hints.js';

/**
 * AI-01: one source of guidance. Three implement it: the offline engine (the default, no service at all),
 * an OpenAI-compatible API, and the external hints service of AI_HINTS_URL.
 */
export interface AiProvider {
  readonly engine: AiEngine;
  /** AI-06, AI-07: the hint for one customer message, with the cues behind it. */
  hint(req: HintRequest & { accountId: number }): Promise<Omit<AiHint, 'messageId'>>;
}

/** Chooses an account's provider (its AI settings); the offline engine when it chose none. */
export interface AiProviders {
  forAccount(db: DB, accountId: number): Promise<AiProvider>;
}

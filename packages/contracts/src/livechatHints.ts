import { z } from 'zod';
import { AI_ENGINES, AiAnalysis, AiCue } from './ai.js';
import { NotConfiguredAnswer } from './services.js';

/**
 * AI hints for agents in a live chat (AI-03, AI-06, AI-07, AI-09). The web app asks
 * `GET /api/wauchat/recommendation` for a message; the server hands it to the configured provider, or
 * answers `not_configured` "AI hints are not configured." when there is none (and `GET /api/services`
 * says so first, so the web app does not ask).
 */

/** The sender name of the translation bot's messages (spec §3, Message.sender). */
export const TRANSLATE_BOT = 'translatebot';

export const AI_STRINGS = {
  notConfigured: 'AI hints are not configured.',
  title: 'AI hint',
  confidence: (c: number) => `Confidence ${Math.round(c * 100)}%`,
  failed: 'The AI hint service failed.',
} as const;

/** Conversations that get no AI guidance: the team's own chats (Workspace). */
export const TICKET_CHANNELS_WITHOUT_AI: readonly string[] = ['chat'];

/**
 * AI-03: a live chat's hints are fetched only for messages not sent by the current agent or the
 * translation bot. Design: and only for text (system lines, files and notes carry nothing to advise on).
 */
export function wantsAiHint(m: { sender: string; type: string }, me: string): boolean {
  return m.type === 'text' && m.sender !== me && m.sender !== TRANSLATE_BOT;
}

/**
 * AI-06: `GET /api/wauchat/recommendation` with text, messageId, channel, translation. Design:
 * `translation` is the message's text in the agent's language when the agent reads a translation ('' when
 * not), so the provider may answer about either.
 */
export const AiHintQuery = z.object({
  text: z.string().trim().min(1).max(4_000),
  messageId: z.coerce.number().int().positive(),
  channel: z.string().trim().min(1).max(40),
  translation: z.string().max(4_000).default(''),
});
export type AiHintQuery = z.infer<typeof AiHintQuery>;

/** AI-07 (design): the hint for that message; confidence defaults to 1 (AI-09). */
export const AiHint = z.object({
  messageId: z.number(),
  recommendation: z.string(),
  confidence: z.number().min(0).max(1).default(1),
  /** Which engine answered, and the cues that made it say so (empty when the engine gives none). */
  engine: z.enum(AI_ENGINES),
  cues: z.array(AiCue).default([]),
  /** The offline engine's full reading (emotion, personality, sales, scam, next action), when it answered. */
  analysis: AiAnalysis.optional(),
});
export type AiHint = z.infer<typeof AiHint>;
export const AiHintAnswer = z.union([z.object({ result: z.literal('success'), data: AiHint }), NotConfiguredAnswer]);
export type AiHintAnswer = z.infer<typeof AiHintAnswer>;

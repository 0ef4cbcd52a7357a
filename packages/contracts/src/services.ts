import { z } from 'zod';

/**
 * The optional services of this installation that the web app offers only when they are set up: a
 * translation provider (TRANSLATE_URL), an AI hints provider (AI_HINTS_URL) and outgoing mail (SMTP_URL).
 * `GET /api/services` answers them once per session, so no screen asks a service that is not there.
 */
export const ServicesAnswer = z.object({
  result: z.literal('success'),
  translate: z.boolean(),
  ai_hints: z.boolean(),
  mail: z.boolean(),
  /** REPORT-25: an analytics page to frame on the omnichannel report (ANALYTICS_URL). */
  analytics: z.boolean(),
});
export type ServicesAnswer = z.infer<typeof ServicesAnswer>;

/**
 * A call to an optional service that is not set up answers 200 with this (after its input is checked), so
 * a client that asks anyway shows the sentence once instead of meeting an error on every open.
 */
export const NotConfiguredAnswer = z.object({ result: z.literal('not_configured'), description: z.string() });
export type NotConfiguredAnswer = z.infer<typeof NotConfiguredAnswer>;

/** AI hints for agents (AI-01, AI-03, AI-06, AI-07): the route and the pluggable provider. */

/** `GET /api/wauchat/recommendation`. */
export { aiRoutes } from './ai.routes.js';
/** RT-24, RT-25: customers' messages read for emotion and context (`textEmotion`, `newEmotion`, `newContext`). */
export { type EmotionReader, ruleReader, type TextReading } from './emotion.js';
export { emotionListener } from './emotion.listener.js';
/** The provider interface, the not-configured default and the HTTP provider (AI_HINTS_URL). */
export { type HintProvider, httpHints } from './hints.js';

/** AI hints for agents (AI-01, AI-03, AI-06, AI-07): the route and the pluggable provider. */

/** `GET /api/wauchat/recommendation`. */
export { aiRoutes } from './ai.routes.js';
/** Per-account settings (an OpenAI-compatible model, the translator), their routes and `/api/wauchat`. */
export { AccountAi } from './aiSettings.js';
export { aiSettingsRoutes } from './aiSettings.routes.js';
/** Classification by the account's own model, retrained by `trainClassifiers`. */
export { Classifiers, trainClassifiers } from './classify/classifier.js';
/** RT-24, RT-25: customers' messages read for emotion and context (`textEmotion`, `newEmotion`, `newContext`). */
export { type EmotionReader, ruleReader, type TextReading } from './emotion.js';
export { emotionListener } from './emotion.listener.js';
export { analyseMessage } from './engine/analyse.js';
/** The provider interface, the offline engine, the HTTP hints provider (AI_HINTS_URL) and the choice. */
export { type HintRequest, httpHints } from './hints.js';
/** Offline language detection (MSG-52) and the listener that sets an unknown ticket language from it. */
export { alreadyIn, detectLanguage } from './language.js';
export { languageListener } from './language.listener.js';
export { offlineProvider } from './offline.js';
export type { AiProvider, AiProviders } from './provider.js';
/** `GET /api/wauchat/ticket_recommendation` and `POST /api/wauchat/feedback`. */
export { recommendRoutes } from './recommend.routes.js';
/** "What to say": BM25 over the account's published articles and its team's past replies. */
export { WhatToSayIndex } from './retrieve/whatToSay.js';
/** Scam Calls: calls the engine flagged from the caller's words (`GET /api/call_verification`). */
export { readCallScam, recordCallScam, scamCallsRoutes } from './scamCalls.js';
/** MSG-53: translatebot's translations of the customer's messages, once a reply went out translated. */
export { translatebotListener } from './translatebot.listener.js';
/** The voice reading of a WAV recording (CALL-50); a call's recording is read with it when the call ends. */
export { analyseVoice, decodeWav } from './voice.js';

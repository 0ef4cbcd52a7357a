import { z } from 'zod';

/**
 * AI guidance (AI-01, AI-02, AI-04..09, AI-15): what an engine says about a customer's message, and why.
 * Every answer names the engine that gave it and the cues it matched, so an agent can trust or dismiss it.
 *
 * Engines: `offline` (the project's own, the default: word cues, a per-account classifier and retrieval over
 * the knowledge base and past replies), `openai` (an OpenAI-compatible chat-completions API at a configured
 * base URL and model), `external` (the hints service named by AI_HINTS_URL).
 */
export const AI_ENGINES = ['offline', 'openai', 'external'] as const;
export type AiEngine = (typeof AI_ENGINES)[number];

/** A piece of the message that made the engine say what it said (a word, a phrase, a pattern's name). */
export const AiCue = z.object({ cue: z.string(), means: z.string() });
export type AiCue = z.infer<typeof AiCue>;

/** Writing styles read from wording cues (personality hints). */
export const PERSONALITIES = ['direct', 'detailed', 'friendly', 'formal', 'anxious'] as const;
export type Personality = (typeof PERSONALITIES)[number];

/** Sales signals: the customer wants to buy, or could be offered more. */
export const SALES_SIGNALS = ['buying_intent', 'upsell'] as const;
export type SalesSignal = (typeof SALES_SIGNALS)[number];

/** Scam signals (what a fraudster's message to the team, or a customer's report of one, looks like). */
export const SCAM_KINDS = ['payment_redirection', 'credential_request', 'urgency_pressure', 'known_phrasing'] as const;
export type ScamKind = (typeof SCAM_KINDS)[number];

/** Next best actions, chosen by rules from the readings above. */
export const NEXT_ACTIONS = ['escalate', 'offer_callback', 'send_article', 'ask_for_id', 'reply'] as const;
export type NextAction = (typeof NEXT_ACTIONS)[number];

/** One reading with its confidence (0..1; AI-09: 1 when the engine gives none) and its cues. */
const reading = <T extends z.ZodTypeAny>(value: T) =>
  z.object({ value, confidence: z.number().min(0).max(1).default(1), cues: z.array(AiCue) });

/** The offline engine's reading of one message (pure; the same text always reads the same). */
export const AiAnalysis = z.object({
  /** The dominant emotion of the emotion reader (AI-11 names), or null when neutral. */
  emotion: z.string().nullable(),
  personality: reading(z.enum(PERSONALITIES).nullable()),
  sales: reading(z.enum(SALES_SIGNALS).nullable()),
  scam: reading(z.enum(SCAM_KINDS).nullable()),
  next_action: reading(z.enum(NEXT_ACTIONS)),
});
export type AiAnalysis = z.infer<typeof AiAnalysis>;

/** Classification by the account's own model (trained on its labelled tickets). */
export const AiClassification = z.union([
  z.object({ status: z.literal('ok'), label: z.string(), confidence: z.number().min(0).max(1), cues: z.array(AiCue) }),
  /** Fewer labelled tickets than the model needs, or no model trained yet. */
  z.object({ status: z.literal('not_enough_data'), labelled: z.number().int(), needed: z.number().int() }),
]);
export type AiClassification = z.infer<typeof AiClassification>;

/** "What to say": the best reply found, with where it came from. */
export const WhatToSay = z.object({
  text: z.string(),
  source: z.object({
    kind: z.enum(['article', 'reply']),
    id: z.number().int(),
    /** The article's title, or the ticket number the past reply was sent on. */
    title: z.string(),
  }),
  score: z.number(),
  /** The words the message and the source share that ranked it. */
  cues: z.array(AiCue),
});
export type WhatToSay = z.infer<typeof WhatToSay>;

export const AI_GUIDANCE_STRINGS = {
  engine: { offline: 'Built-in engine', openai: 'Language model', external: 'Hints service' } as Record<
    AiEngine,
    string
  >,
  notEnoughData: (labelled: number, needed: number) =>
    `Not enough data: ${labelled} labelled tickets, ${needed} needed.`,
  noWhatToSay: 'Nothing similar found in the knowledge base or past replies.',
  insert: 'Insert',
  useful: 'Useful',
  dismiss: 'Dismiss',
  scamWarning: 'Possible scam',
  why: 'Why',
  whatToSay: 'What to say',
  fromArticle: (title: string) => `From the article “${title}”`,
  fromReply: (title: string) => `From a reply on ${title}`,
  topic: (label: string, confidence: number) => `Topic: ${label} ${Math.round(confidence * 100)}%`,
  style: (p: string) => `Style: ${p}`,
  scam: {
    payment_redirection: 'payment redirection',
    credential_request: 'asks for credentials',
    urgency_pressure: 'pressure to act now',
    known_phrasing: 'known scam wording',
  } as Record<ScamKind, string>,
  sales: { buying_intent: 'Buying intent', upsell: 'Upsell chance' } as Record<SalesSignal, string>,
  noCues: 'No particular cue: the default advice.',
} as const;

/** AI-08: `GET /api/wauchat/ticket_recommendation` with text, `_token` (accepted, unused), messageId, channel. */
export const TicketRecommendationQuery = z.object({
  text: z.string().trim().min(1).max(100_000),
  messageId: z.coerce.number().int().positive(),
  channel: z.string().trim().min(1).max(40),
  _token: z.string().max(500).optional(),
});
export type TicketRecommendationQuery = z.infer<typeof TicketRecommendationQuery>;

/** AI-08 (design): classification, what to say, the full reading (`results`) and the scam reading. */
export const TicketRecommendation = z.object({
  engine: z.enum(AI_ENGINES),
  classification: AiClassification,
  what_to_say: WhatToSay.nullable(),
  results: AiAnalysis,
  scam: AiAnalysis.shape.scam,
});
export type TicketRecommendation = z.infer<typeof TicketRecommendation>;

/** A use or a dismissal of a suggestion, recorded to rank later ones (uses up, dismissals down). */
export const AiFeedbackBody = z.object({
  messageId: z.number().int().positive(),
  kind: z.enum(['what_to_say', 'next_action', 'classification', 'hint']),
  verdict: z.enum(['used', 'dismissed']),
  /** For what_to_say: the source it came from. */
  source: z.object({ kind: z.enum(['article', 'reply']), id: z.number().int().positive() }).optional(),
});
export type AiFeedbackBody = z.infer<typeof AiFeedbackBody>;

// ---- providers, per-account settings and /api/wauchat ----

/** How an account's guidance is given: the built-in engine, or a language model (OpenAI-compatible API). */
export const AI_PROVIDERS = ['offline', 'openai'] as const;
export type AiProviderChoice = (typeof AI_PROVIDERS)[number];
/** Who translates an account's messages: the installation's LibreTranslate server (TRANSLATE_URL), or the model. */
export const AI_TRANSLATORS = ['installation', 'openai'] as const;
export type AiTranslatorChoice = (typeof AI_TRANSLATORS)[number];

export const AI_SETTINGS_STRINGS = {
  title: 'AI',
  intro:
    'Guidance for agents comes from the built-in engine, which needs no service. A language model (any OpenAI-compatible API: OpenAI, a local Ollama or vLLM) writes richer hints and rewrites, and can translate.',
  engineLabel: 'Engine',
  baseUrl: 'Base URL',
  baseUrlHelp:
    'Like https://api.openai.com/v1 or http://localhost:11434/v1 (a local address must be allowed by the server: AI_ALLOWED_HOSTS).',
  model: 'Model',
  apiKey: 'API key',
  apiKeySet: (last4: string) => `A key is set (ending ${last4}). Type a new one to replace it.`,
  apiKeyNone: 'No key set (a local model may need none).',
  removeKey: 'Remove the key',
  translatorLabel: 'Translation',
  translators: {
    installation: 'The server\u2019s translation service',
    openai: 'The language model',
  } as Record<AiTranslatorChoice, string>,
  noInstallationTranslator:
    'This server has no translation service (TRANSLATE_URL): choose the language model to translate messages.',
  save: 'Save',
  saved: 'Saved.',
  test: 'Test',
  testing: 'Testing\u2026',
  testOk: (model: string, ms: number) => `The model ${model} answered in ${ms} ms.`,
  adminsOnly: 'Only admins change the AI settings.',
  incomplete: 'A language model needs a base URL and a model.',
  badUrl: 'Give a full http or https URL, like https://api.openai.com/v1.',
  httpsOnly: 'A language model\u2019s URL must use https (or be allowed by the server: AI_ALLOWED_HOSTS).',
  privateAddress: 'A language model at a private or local address must be allowed by the server (AI_ALLOWED_HOSTS).',
  noSecretsKey:
    'An API key needs SECRETS_KEY on the server (32 random bytes in base64) to keep it encrypted. Ask your administrator to set it and restart.',
  cannotDecrypt: 'The stored API key cannot be read with this server\u2019s SECRETS_KEY: enter it again.',
  refused: 'The language model refused the key (check the API key).',
  rateLimited: (seconds: number | null) =>
    seconds === null
      ? 'The language model is rate limited: try again shortly.'
      : `The language model is rate limited: try again in ${seconds} s.`,
  timedOut: (seconds: number) => `The language model did not answer within ${seconds} s.`,
  failed: (status: number | string) => `The language model failed (${status}).`,
  badAnswer: 'The language model answered with nothing usable.',
  needsModel: 'Needs a language model: choose one in Settings \u2192 AI.',
  noTranslatorModel: 'Translation by the language model needs one: choose it in Settings \u2192 AI.',
  /** `/api/wauchat` personality from the built-in engine: its reading of the message, not a rewrite. */
  personalityRead: (style: string) => `The message reads as ${style}.`,
  personalityNone: 'The built-in engine finds no clear style in this message.',
  personalityNames: {
    direct: 'direct: keep the answer short and to the point',
    detailed: 'detailed: give the full explanation and the steps',
    friendly: 'friendly: answer warmly and personally',
    formal: 'formal: answer politely and precisely',
    anxious: 'anxious: reassure first, then say what happens next',
  } as Record<string, string>,
} as const;

/** `GET /api/ai/settings`: the key itself is never answered, only whether one is set and its last 4 characters. */
export const AiSettings = z.object({
  provider: z.enum(AI_PROVIDERS),
  base_url: z.string(),
  model: z.string(),
  key_set: z.boolean(),
  key_last4: z.string(),
  translator: z.enum(AI_TRANSLATORS),
  /** What the installation offers besides: the hints service (AI_HINTS_URL) and a translation server. */
  installation: z.object({ hints_service: z.boolean(), translate: z.boolean(), secrets: z.boolean() }),
});
export type AiSettings = z.infer<typeof AiSettings>;
export const AiSettingsAnswer = z.object({ result: z.literal('success'), data: AiSettings });
export type AiSettingsAnswer = z.infer<typeof AiSettingsAnswer>;

/**
 * `PUT /api/ai/settings` (admins). `api_key`: absent keeps the stored key, '' removes it, a value replaces it.
 * A base URL is http(s); `openai` needs a base URL and a model.
 */
export const AiSettingsInput = z.object({
  provider: z.enum(AI_PROVIDERS),
  base_url: z.string().trim().max(500).default(''),
  model: z.string().trim().max(200).default(''),
  api_key: z.string().trim().max(500).optional(),
  translator: z.enum(AI_TRANSLATORS).default('installation'),
});
export type AiSettingsInput = z.infer<typeof AiSettingsInput>;

/** `POST /api/ai/settings/test`: one short call to the model with the settings given (or the stored ones). */
export const AiSettingsTestAnswer = z.union([
  z.object({ result: z.literal('success'), model: z.string(), ms: z.number(), sample: z.string() }),
  z.object({ result: z.literal('failed'), description: z.string() }),
]);
export type AiSettingsTestAnswer = z.infer<typeof AiSettingsTestAnswer>;

/** AI-04: the kinds of help `GET /api/wauchat` gives on an agent's draft. */
export const WAUCHAT_TYPES = ['alternative', 'personality', 'advocacy', 'forwardresolution', 'anchor'] as const;
export type WauchatType = (typeof WAUCHAT_TYPES)[number];
export const WAUCHAT_TYPE_NAMES: Record<WauchatType, string> = {
  alternative: 'Another way to say it',
  personality: 'Match the customer\u2019s style',
  advocacy: 'Advocate for the customer',
  forwardresolution: 'Move toward resolution',
  anchor: 'Set expectations',
};

/** AI-04: `GET /api/wauchat` with type and message (the agent's draft, or the customer's message for personality). */
export const WauchatQuery = z.object({
  type: z.enum(WAUCHAT_TYPES),
  message: z.string().trim().min(1).max(4_000),
});
export type WauchatQuery = z.infer<typeof WauchatQuery>;

/**
 * AI-05 (design): the suggestion, and the engine that wrote it. The built-in engine writes no rewrites: for
 * `personality` it answers its reading of the message (the style and its cues, in `analysis`), for the others
 * `not_configured` "Needs a language model: choose one in Settings → AI."
 */
export const WauchatAnswer = z.union([
  z.object({
    result: z.literal('success'),
    data: z.object({
      type: z.enum(WAUCHAT_TYPES),
      text: z.string(),
      engine: z.enum(AI_ENGINES),
      cues: z.array(AiCue).default([]),
      analysis: AiAnalysis.optional(),
    }),
  }),
  z.object({ result: z.literal('not_configured'), description: z.string() }),
]);
export type WauchatAnswer = z.infer<typeof WauchatAnswer>;

/** MSG-49: what a translation server's failure says (never the texts sent). */
export const TRANSLATE_STRINGS = {
  refusedKey: 'The translation service refused the key (TRANSLATE_API_KEY).',
  badRequest: 'The translation service refused the request (a language it does not support?).',
  rateLimited: (seconds: number | null) =>
    seconds === null
      ? 'The translation service is rate limited: try again shortly.'
      : `The translation service is rate limited: try again in ${seconds} s.`,
  timedOut: (seconds: number) => `The translation service did not answer within ${seconds} s.`,
  failed: (status: number | string) => `The translation service failed (${status}).`,
  badAnswer: 'The translation service answered badly.',
} as const;

// ---- Scam Calls (/call_verification) ----

/** Calls of the Scam Calls feed a page holds; more are asked for while a page comes back full. */
export const SCAM_CALL_PAGE_SIZE = 30;

/** CALL-45, NAV-24: `GET /api/call_verification` (admins of an account with the `scam_calls` feature). */
export const ScamCallsQuery = z.object({
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
  /** One scam kind, or every kind when absent or empty. */
  kind: z.union([z.enum(SCAM_KINDS), z.literal('')]).default(''),
  /** Only the calls with this customer number. */
  number: z.string().trim().max(50).default(''),
});
export type ScamCallsQuery = z.input<typeof ScamCallsQuery>;

/** One flagged call: the call's facts, the engine's reading and the words of the transcript that made it. */
export const ScamCall = z.object({
  ticket_id: z.number(),
  ticket_number: z.number(),
  direction: z.enum(['', 'inbound', 'outbound']),
  number: z.string(),
  name: z.string(),
  assignee: z.string(),
  started_at: z.number(),
  duration: z.number(),
  kind: z.enum(SCAM_KINDS),
  confidence: z.number().min(0).max(1),
  flagged_at: z.number(),
  /** The cues matched in the caller's words (empty when the transcript is gone). */
  cues: z.array(AiCue),
  /** The caller's line where the first cue is ('' when the transcript is gone). */
  excerpt: z.string(),
  /** How many of the account's calls from this number were flagged. */
  number_flags: z.number().int(),
});
export type ScamCall = z.infer<typeof ScamCall>;

/** A number the account's flagged calls came from, most flagged first. */
export const ScamNumber = z.object({ number: z.string(), calls: z.number().int(), last_at: z.number() });
export type ScamNumber = z.infer<typeof ScamNumber>;

/** CALL-46 (design): a page of flagged calls, newest first, and (first page) the most flagged numbers. */
export const ScamCallsAnswer = z.object({
  result: z.literal('success'),
  data: z.array(ScamCall),
  numbers: z.array(ScamNumber),
  total: z.number().int(),
});
export type ScamCallsAnswer = z.infer<typeof ScamCallsAnswer>;

export const SCAM_CALL_STRINGS = {
  title: 'Scam Calls',
  notAllowed: 'Scam Calls is for admins of accounts that have it.',
  intro:
    'Calls the built-in engine read as possible scams from what the caller said, newest first. Each shows the words that made it.',
  empty: 'No call has been flagged as a possible scam.',
  emptyFiltered: 'No flagged call matches this filter.',
  numbers: 'Flagged numbers',
  flaggedCalls: (n: number) => (n === 1 ? '1 flagged call' : `${n} flagged calls`),
  noTranscript: 'The transcript is no longer kept.',
  unknownNumber: 'unknown number',
} as const;

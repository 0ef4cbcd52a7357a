import { z } from 'zod';
import { RECORDING_EMOTIONS } from './emotion.js';

/** CALL-10 .. CALL-14: the call-server indicator's words (the spec's, exactly) and ours. */
export const CALL_STRINGS = {
  connected: 'Connected to call server.',
  failed: 'Unable to connect to the call server. Click the icon to retry.',
  /** Ours: the orange state's tooltip (CALL-09). */
  connecting: 'Connecting to the call server...',
  dismiss: 'Dismiss',
  authenticate: 'Authenticate',
  /** Ours (CALL-14): what Authenticate is for, in its tooltip. */
  authenticateHelp: "Open the call server's address to accept its certificate, then retry.",
  badUrl: 'The call server address must be a ws:// or wss:// address.',
  notAllowed: 'Only admins and users with the call settings permission can change this.',
  saved: 'Call server saved.',
  /** CALL-36: the spec's alert when the DID lookup fails. */
  imcFailed: 'failed to get imc information',
  notFound: 'Call not found.',
  unknownDid: 'No description is set for this DID.',
  badRecording: 'recording must be a file uploaded to this account (/files/...).',
  recordingNotAudio: 'The recording must be an audio file.',
  /** REC-01 */
  recordingsNotAllowed: 'Only supervisors and admins can read recordings.',
  noRecording: 'This call has no recording.',
  badRange: 'The requested range is not in the recording.',
  badAcw: 'acw_seconds must be a whole number of seconds from 0 to 3600.',
  didAdminOnly: 'Only admins can describe DIDs.',
} as const;

const WS_URL = /^wss?:\/\//i;

/** A ws:// or wss:// address with a host, as `new URL` reads it; null when it is not one. */
export function parseSipWsUrl(value: string): URL | null {
  if (!WS_URL.test(value)) return null;
  try {
    const u = new URL(value);
    return u.hostname ? u : null;
  } catch {
    return null;
  }
}

/**
 * CALL-02: `sipIp` and `sipPort` of the auth check, read from the call server's address (the port defaults
 * to 443 for wss and 80 for ws).
 */
export function sipServerOf(value: string): { sipIp: string; sipPort: number } | null {
  const u = parseSipWsUrl(value);
  if (!u) return null;
  const port = u.port ? Number(u.port) : u.protocol === 'wss:' ? 443 : 80;
  return { sipIp: u.hostname, sipPort: port };
}

/**
 * CALL-14 (design): Authenticate opens the call server's address as https (http for ws) in a new tab, where
 * the browser can accept a certificate it does not trust yet; a WebSocket cannot ask for that itself.
 */
export function authenticateUrlOf(value: string): string | null {
  const u = parseSipWsUrl(value);
  if (!u) return null;
  return `${u.protocol === 'wss:' ? 'https:' : 'http:'}//${u.host}/`;
}

/** CALL-43, CALL-44: `GET /api/call/config`: the account's own call server, and the installation's. */
export const CallConfig = z.object({
  /** The account's own address, or null to use the installation's. */
  sip_ws_url: z.string().nullable(),
  /** The installation's address (`SIP_WS_URL`), '' when none is set. */
  default_url: z.string(),
  /** CALL-40: the after-call wrap-up in seconds (30 unless the account set another). */
  acw_seconds: z.number(),
});
export type CallConfig = z.infer<typeof CallConfig>;
export const CallConfigAnswer = z.object({ result: z.literal('success'), data: CallConfig });

/** `POST /api/call/config`: a ws:// or wss:// address of at most 300 characters, or null (or '') for none. */
export const CallConfigInput = z.object({
  sip_ws_url: z
    .string()
    .trim()
    .max(300, CALL_STRINGS.badUrl)
    .nullable()
    .transform((v) => (v ? v : null))
    .refine((v) => v === null || parseSipWsUrl(v) !== null, CALL_STRINGS.badUrl),
  /** CALL-40: the after-call wrap-up; left as it is when not sent. */
  acw_seconds: z
    .number({ error: CALL_STRINGS.badAcw })
    .int({ error: CALL_STRINGS.badAcw })
    .min(0, { error: CALL_STRINGS.badAcw })
    .max(3600, { error: CALL_STRINGS.badAcw })
    .optional(),
});
export type CallConfigInput = z.input<typeof CallConfigInput>;

/** CALL-40: the after-call wrap-up when an account has set none. */
export const DEFAULT_ACW_SECONDS = 30;

/** CALL-29: calls per page of the call list (the ticket list's page). */
export const CALL_PAGE_SIZE = 30;
/** REC-12: recordings per page; more are asked for while a page comes back with this many or more. */
export const RECORDING_PAGE_SIZE = 30;

/** CALL-32: who spoke a transcript entry. */
export const TRANSCRIPT_SOURCES = ['agent', 'customer', 'others'] as const;

const step = z.union([z.literal(0), z.literal(25), z.literal(50), z.literal(75), z.literal(100)]);
const text = (max: number) => z.string().trim().max(max);

/** CALL-32: a transcript entry as the softphone sends it. */
export const CallTranscriptInput = z.object({
  source: z.enum(TRANSCRIPT_SOURCES),
  transcription: z.string().max(5000),
  translated_transcription: z.string().max(5000).default(''),
  interim: z.boolean().default(false),
  data_id: text(100).default(''),
  energy: step.nullable().default(null),
  pace: step.nullable().default(null),
  emotion: text(40).default(''),
  personality: text(40).default(''),
});

/** CALL-32: a stored transcript entry. */
export const CallTranscriptEntry = z.object({
  id: z.number(),
  source: z.enum(TRANSCRIPT_SOURCES),
  transcription: z.string(),
  translated_transcription: z.string(),
  interim: z.boolean(),
  data_id: z.string(),
  energy: z.number().nullable(),
  pace: z.number().nullable(),
  emotion: z.string(),
  personality: z.string(),
});
export type CallTranscriptEntry = z.infer<typeof CallTranscriptEntry>;

/** The call server's id of a call: what its start and end name it by. */
const CallId = z.string().trim().min(1).max(200);

/**
 * `POST /api/call/start`: the softphone (or the call server, through a user's session) reports a call that
 * began. Creates the CALL ticket, assigned to the caller; a second start of the same `call_id` answers the
 * same ticket and changes nothing.
 */
export const CallStartInput = z.object({
  call_id: CallId,
  direction: z.enum(['inbound', 'outbound']),
  /** The customer's number. */
  number: text(50),
  /** The account's number the call came in on or went out from. */
  did: text(50).default(''),
  /** The caller's name when the call server knows it. */
  name: text(200).default(''),
});
export type CallStartInput = z.input<typeof CallStartInput>;

/**
 * `POST /api/call/end`: the call ended. `duration` in seconds (the time since the start when not sent);
 * `recording` a file the caller uploaded to the account (`/api/upload`), audio; `transcript` its entries.
 */
export const CallEndInput = z.object({
  call_id: CallId,
  duration: z.number().int().min(0).max(86_400).optional(),
  recording: z.string().max(400).optional(),
  transcript: z.array(CallTranscriptInput).max(2000).default([]),
});
export type CallEndInput = z.input<typeof CallEndInput>;

/** The facts of a call (CALL-29's detail pane; REC's list item). */
export const CallFacts = z.object({
  ticket_id: z.number(),
  ticket_number: z.number(),
  call_id: z.string(),
  direction: z.enum(['', 'inbound', 'outbound']),
  number: z.string(),
  did: z.string(),
  name: z.string(),
  assignee: z.string(),
  department_id: z.number().nullable(),
  started_at: z.number(),
  ended_at: z.number().nullable(),
  /** Seconds. */
  duration: z.number(),
  /** The call was recorded. */
  has_recording: z.boolean(),
  /**
   * Where the recording streams from (`/api/recordings/{ticketId}/audio`); null when there is none or the
   * viewer may not read recordings (REC-01: supervisors and admins).
   */
  recording: z.string().nullable(),
  recording_name: z.string(),
  /** The emotion read from the recording ('' none) and each emotion's share of the voiced seconds. */
  emotion: z.string(),
  emotion_2: z.record(z.string(), z.number()),
  energy: z.number().nullable(),
  pace: z.number().nullable(),
  personality: z.string(),
});
export type CallFacts = z.infer<typeof CallFacts>;
export const CallAnswer = z.object({ result: z.literal('success'), data: CallFacts });

/** `GET /api/call/{ticketId}`: the call's facts and transcript (CALL-29, CALL-32). */
export const CallDetailAnswer = z.object({
  result: z.literal('success'),
  data: z.object({ call: CallFacts, transcript: z.array(CallTranscriptEntry) }),
});
export type CallDetail = z.infer<typeof CallDetailAnswer>['data'];
export const CallDetailParams = z.object({ id: z.coerce.number().int().positive() });

/** CALL-38: `GET /api/extension/get`: the account's users with an active SIP line. */
export const ExtensionListAnswer = z.object({
  result: z.literal('success'),
  data: z.array(z.object({ id: z.number(), username: z.string(), name: z.string(), extension: z.string() })),
});

/** CALL-06: `GET /api/sip/refresh`: the caller's SIP line as the auth check gives it, read again. */
export const SipRefreshAnswer = z.object({
  result: z.literal('success'),
  sip: z.object({ active: z.number(), sip_number: z.string(), password: z.string() }),
  sip_ws_url: z.string(),
});

/** CALL-35, CALL-37: `GET /api/proxy/imc_user?did=`: what the DID is (404 when the account has not said). */
export const ImcUserQuery = z.object({ did: text(50).pipe(z.string().min(1)) });
export const ImcUserAnswer = z.object({
  result: z.literal('success'),
  data: z.object({ did: z.string(), description: z.string() }),
});
export type ImcUser = z.infer<typeof ImcUserAnswer>['data'];
/** `POST /api/call/did` (admins): describes a DID; an empty description removes it. */
export const CallDidInput = z.object({ did: text(50).pipe(z.string().min(1)), description: text(200) });

const csvOf = <T extends z.ZodType>(item: T) =>
  z.preprocess(
    (v) => (typeof v === 'string' ? (v === '' ? undefined : v.split(',').map((x) => x.trim())) : v),
    z.array(item).max(20).optional(),
  );
const blank = (v: unknown) => (v === '' || v === null ? undefined : v);

/**
 * REC-07, REC-09 (design): `GET /api/recordings`: `type` all (default), inbound or outbound; `emotionFilter`
 * the recording emotions (REC-06), comma-separated; `start`/`end` unix seconds on the call's start;
 * `depFilter` department ids; `offset` rows to skip.
 */
export const RecordingsQuery = z.object({
  type: z.preprocess(blank, z.enum(['all', 'inbound', 'outbound']).default('all')),
  emotionFilter: csvOf(z.enum(RECORDING_EMOTIONS)),
  start: z.preprocess(blank, z.coerce.number().int().min(0).optional()),
  end: z.preprocess(blank, z.coerce.number().int().min(0).optional()),
  depFilter: csvOf(z.coerce.number().int().positive()),
  offset: z.preprocess(blank, z.coerce.number().int().min(0).max(1_000_000).default(0)),
});
export type RecordingsQuery = z.input<typeof RecordingsQuery>;
export const RecordingsAnswer = z.object({ data: z.array(CallFacts), count: z.number() });
export type RecordingsAnswer = z.infer<typeof RecordingsAnswer>;

/** "M:SS" (or "H:MM:SS") of a call's duration in seconds. */
export function callDuration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

export const CALL_FILTER_STRINGS = {
  badDate: 'date must be a day written YYYY-MM-DD.',
  badStep: 'energy and pace take 0, 25, 50, 75 or 100.',
} as const;

const stepText = z.enum(['0', '25', '50', '75', '100'], { error: CALL_FILTER_STRINGS.badStep });

/**
 * CALL-30, REC-10 (design): the call list's filters on the load call (`type` call2; any type accepts them,
 * and only CALL tickets can match energy, pace and personality). Lists are comma-separated.
 * - `emotion`: the ticket's emotion is one of them; `energy`, `pace`: the recording's reading is one of the
 *   steps; `personality`: the call's personality is one of them.
 * - `direction` inbound or outbound; `assignee` one username among the assignees; `number` a part of the
 *   customer's number; `DID` the account's number, exactly; `date` the UTC day (YYYY-MM-DD) the call came in.
 */
export const CallFilterQueryFields = {
  emotion: csvOf(z.string().trim().min(1).max(40)),
  energy: csvOf(stepText),
  pace: csvOf(stepText),
  personality: csvOf(z.string().trim().min(1).max(40)),
  direction: z.preprocess(blank, z.enum(['inbound', 'outbound']).optional()),
  assignee: z.preprocess(blank, z.string().trim().max(100).optional()),
  number: z.preprocess(blank, z.string().trim().max(50).optional()),
  DID: z.preprocess(blank, z.string().trim().max(50).optional()),
  date: z.preprocess(
    blank,
    z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, { error: CALL_FILTER_STRINGS.badDate })
      .refine((d) => !Number.isNaN(Date.parse(`${d}T00:00:00Z`)), { error: CALL_FILTER_STRINGS.badDate })
      .optional(),
  ),
};

/** Whether a load call uses one of the call filters (they read the call's row: the server decides). */
export function hasCallFilters(
  q: {
    [K in keyof typeof CallFilterQueryFields]?: unknown;
  },
): boolean {
  return (Object.keys(CallFilterQueryFields) as (keyof typeof CallFilterQueryFields)[]).some((k) => q[k] !== undefined);
}

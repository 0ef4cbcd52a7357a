import type { Channel, ChannelKind } from '@parley/contracts';

/** A connection opened for an adapter: its settings and its secrets in the clear (never logged). */
export interface OpenConnection {
  id: number;
  accountId: number;
  kind: ChannelKind;
  settings: Record<string, string>;
  secrets: Record<string, string>;
  verifyToken: string;
  /** The random key of its webhook address (SMS names it as the status callback of each reply). */
  webhookKey: string;
}

/** What a customer wrote, as the provider told us. */
export interface InboundMessage {
  /** The provider's id of the message: a message is stored once per connection and id. */
  providerId: string;
  /** The customer's id at the provider (a WhatsApp number, a Telegram chat id): one open ticket per peer. */
  peer: string;
  /** The customer's name as the provider gives it ('' when none). */
  name: string;
  /** Their phone number in E.164 when the provider gives one (WhatsApp), for the contact. */
  phone?: string;
  text: string;
  /** Milliseconds since the epoch, as the provider stamped it. */
  at: number;
  /** A file to fetch from the provider and attach (a photo, a voice note, a document). */
  media?: { id: string; mime: string; name: string };
  /** A single-use token to answer this message with, for a short while (LINE's replyToken: replies are free). */
  replyToken?: string;
  /** The ticket channel when not the kind's own (a Page's post comments: FB_PAGE_POST; X mentions: TW_MENTION). */
  channel?: Channel;
  /**
   * What an agent's reply in this thread answers (the comment or tweet; an Instagram reply's top comment):
   * kept per connection and peer, the latest wins, read (not taken) by every reply.
   */
  replyTo?: string;
  /** The post a comment is under: a ticket it starts shows it first (its text asked of `contextText`). */
  context?: { id: string; link: string };
  /** The text (and name) are asked of the provider before storing (`complete`): Instagram's mentions name only ids. */
  incomplete?: boolean;
}

/** A reply's delivery as the provider reports it. */
export interface StatusUpdate {
  providerId: string;
  state: 'sent' | 'delivered' | 'read' | 'failed';
  error?: string;
}

export interface Parsed {
  messages: InboundMessage[];
  statuses: StatusUpdate[];
  /** The provider ids of messages the customer took back (LINE's unsend): hidden like a deleted message. */
  unsent?: string[];
}

/** A reply to send: text, or (WhatsApp, outside its window) an approved template. */
export interface Outbound {
  /** Our id of the reply: the same on every try, so a provider with idempotency keys (LINE) sends it once. */
  messageId: number;
  peer: string;
  text: string;
  template?: { name: string; language: string };
  /** The customer's latest reply token, still fresh, taken for this send (LINE): used once, else it pushes. */
  replyToken?: string;
  /** The ticket's channel: one connection answers DMs and comments differently. */
  channel: string;
  /** The thread's latest `replyTo` (the comment or tweet answered). */
  replyTo?: string;
  /** A Facebook comment answered by Messenger (a private reply) rather than under the post. */
  privately?: boolean;
}

/** The provider refused or failed: its own words; `transient` when trying again later may work. */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly transient: boolean,
  ) {
    super(message);
  }
}

/** The raw webhook request as the adapter needs to check and read it. */
export interface WebhookRequest {
  rawBody: string;
  headers: Record<string, string | string[] | undefined>;
  /** The full address the provider posted to, with its query (PUBLIC_URL's origin): Twilio signs it. */
  url: string;
}

/**
 * One provider: how its webhooks are proven and read, and how a reply is sent. Small and pure but for
 * `send`, `fetchMedia` and `test`, which talk to the provider at its API base URL (a setting).
 */
export interface ChannelAdapter {
  kind: ChannelKind;
  /** The GET handshake some providers make when a webhook is set (WhatsApp): the body to echo, or null. */
  handshake?(query: Record<string, unknown>, c: OpenConnection): string | null;
  /** The content type of the handshake's answer (X's CRC answers JSON); text/plain otherwise. */
  handshakeType?: string;
  /** Whether the request comes from the provider (its signature or secret header). */
  verify(req: WebhookRequest, c: OpenConnection): boolean;
  /** The messages and statuses of a verified payload; throws on one it cannot read. */
  parse(rawBody: string, c: OpenConnection): Parsed;
  /** Sends a reply; answers the provider's id of the message. */
  send(c: OpenConnection, out: Outbound): Promise<string>;
  /** Downloads an inbound file. */
  fetchMedia?(c: OpenConnection, id: string): Promise<Buffer>;
  /** Tries the token: the provider's words of who it is. */
  test(c: OpenConnection): Promise<string>;
  /** The customer's display name, asked of the provider when the webhook gives none (LINE); '' when unknown. */
  profileName?(c: OpenConnection, peer: string): Promise<string>;
  /** The text of the post a comment is under (asked when the comment starts a ticket); '' when none. */
  contextText?(c: OpenConnection, id: string): Promise<string>;
  /** The text and name of a message the webhook names only by id (`incomplete`). */
  complete?(c: OpenConnection, m: InboundMessage): Promise<{ text: string; name: string }>;
  /** What a taken webhook is answered, when the provider reads the answer (Twilio expects TwiML). */
  webhookAnswer?: { contentType: string; body: string };
}

/** The provider's words out of a failed HTTP answer (JSON error fields, else the status line). */
export async function providerWords(res: Response): Promise<string> {
  const text = await res.text().catch(() => '');
  try {
    const j = JSON.parse(text) as {
      error?: { message?: string; code?: number } | string;
      description?: string;
      message?: string;
      code?: number;
      details?: { message?: string; property?: string }[];
    };
    if (typeof j.error === 'object' && j.error?.message)
      return `${j.error.code !== undefined ? `(#${j.error.code}) ` : ''}${j.error.message}`.slice(0, 500);
    if (typeof j.error === 'string') return j.error.slice(0, 500);
    if (j.description) return j.description.slice(0, 500);
    // LINE ({message, details: [{message, property}]}) and Twilio ({code, message, more_info, status}).
    if (typeof j.message === 'string' && j.message) {
      const detail = j.details?.[0];
      const more = detail?.message ? ` (${[detail.property, detail.message].filter(Boolean).join(': ')})` : '';
      return `${typeof j.code === 'number' ? `(#${j.code}) ` : ''}${j.message}${more}`.slice(0, 500);
    }
  } catch {
    // Not JSON: the status line says it.
  }
  return `${res.status} ${res.statusText}`.trim();
}

/** Fetch with a deadline; a network failure or a timeout is transient. */
export async function callProvider(url: string, init: RequestInit, timeoutMs = 15_000): Promise<Response> {
  try {
    return await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    throw new ProviderError(`The provider could not be reached: ${(err as Error).message}`, true);
  }
}

/** A failed answer as a ProviderError: 429 and 5xx are worth trying again, the rest are refusals. */
export async function refusal(res: Response): Promise<ProviderError> {
  return new ProviderError(await providerWords(res), res.status === 429 || res.status >= 500);
}

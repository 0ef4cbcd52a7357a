import {
  CHANNEL_STRINGS,
  KIND_NAMES,
  MESSAGE_STRINGS,
  META_WINDOW_CHANNELS,
  type MessageDeliveryEvent,
  POST_CHANNELS,
  WHATSAPP_WINDOW_MS,
} from '@parley/contracts';
import type pino from 'pino';
import type { AuthContext } from '../../platform/auth/sessions.js';
import type { DB } from '../../platform/db/db.js';
import { conflict, forbidden, notFound } from '../../platform/http/errors.js';
import { appendEvent, type Listener, runCommand } from '../../platform/outbox/index.js';
import type { Task } from '../../platform/scheduler.js';
import type { Secrets } from '../email/index.js';
import { type Conversations, htmlToText } from '../messages/index.js';
import { type ChannelAdapter, type OpenConnection, ProviderError } from './adapter.js';
import { findConnection, openConnection, recordConnectionError } from './connections.js';
import { setDelivery } from './inbound.js';

/** Tries of one send (the first and the relay's retries with its backoff) before it is failed. */
export const CHANNEL_SEND_TRIES = 5;
/**
 * How long after the customer's message its reply token is still tried (LINE documents about a minute and
 * does not promise that; a stale one answers 400 and the reply is pushed instead).
 */
export const REPLY_TOKEN_MS = 50_000;
/** A send not settled this long after it began was cut short by a crash: failed, never sent again by itself. */
export const CHANNEL_INTERRUPTED_MS = 10 * 60_000;

/** What `channel.reply_queued` carries: the reply to send (stored `sending`), maybe as a template. */
export interface ChannelReplyQueued {
  messageId: number;
  ticketId: number;
  template?: { name: string; language: string };
  /** A Facebook post's comment answered by Messenger (a private reply), not under the post. */
  privately?: boolean;
}

export interface OutboundDeps {
  db: DB;
  conversations: Conversations;
  secrets: Secrets | null;
  adapters: Map<string, ChannelAdapter>;
  log: pino.Logger;
}

/**
 * Whether Meta's 24-hour window is open (WhatsApp's customer-service window, Messenger's and Instagram's
 * standard messaging window): the customer wrote within the last 24 hours.
 */
export const windowOpen = (lastCustomerAt: number, now = Date.now()) =>
  lastCustomerAt > 0 && now - lastCustomerAt < WHATSAPP_WINDOW_MS;

/**
 * Sends one reply stored `sending` on its ticket's connection, exactly once as far as it can be known:
 * the attempt is claimed first (`delivery_attempt_at`, only where none is under way), the provider is
 * called, and the outcome recorded with the provider's message id (so its statuses find the reply). A
 * refusal fails it with the provider's words; trouble worth retrying (429, 5xx, no answer) gives the attempt
 * back and throws, so the relay tries again with its backoff, until CHANNEL_SEND_TRIES.
 */
export async function sendChannelReply(deps: OutboundDeps, accountId: number, q: ChannelReplyQueued, tries: number) {
  const { db, conversations } = deps;
  const attemptAt = Date.now();
  const claimed = await runCommand(db, async (trx) => {
    const took = await trx
      .updateTable('messages')
      .set({ delivery_attempt_at: attemptAt })
      .where('account_id', '=', accountId)
      .where('id', '=', q.messageId)
      .where('delivery_state', '=', 'sending')
      .where('delivery_attempt_at', 'is', null)
      .executeTakeFirst();
    if (Number(took.numUpdatedRows) !== 1) return null;
    return trx
      .selectFrom('messages as m')
      .innerJoin('tickets as t', (j) => j.onRef('t.id', '=', 'm.ticket_id').onRef('t.account_id', '=', 'm.account_id'))
      .select([
        'm.id',
        'm.type',
        'm.message',
        't.id as ticket_id',
        't.channel',
        't.channel_connection_id',
        't.channel_peer',
        't.last_message_at',
      ])
      .where('m.account_id', '=', accountId)
      .where('m.id', '=', q.messageId)
      .executeTakeFirstOrThrow();
  });
  if (!claimed) return;
  const m = { accountId, id: Number(claimed.id), ticketId: Number(claimed.ticket_id), channel: claimed.channel };
  const settle = (state: MessageDeliveryEvent['state'], error: string | null) =>
    runCommand(db, (trx) => setDelivery(trx, conversations, { ...m, state, error }, { attemptAt }));
  const row =
    claimed.channel_connection_id === null
      ? undefined
      : await findConnection(db, accountId, Number(claimed.channel_connection_id));
  const adapter = row ? deps.adapters.get(row.kind) : undefined;
  if (!row || !adapter || !claimed.channel_peer) return void (await settle('failed', CHANNEL_STRINGS.noConnection));
  const c = openConnection(row, deps.secrets);
  if (!c) return void (await settle('failed', CHANNEL_STRINGS.cannotDecrypt));
  // Meta refuses a free reply past the window: said before calling (WhatsApp offers a template instead;
  // Messenger's message tags, such as HUMAN_AGENT, are not built).
  // Comments have no such window: only the conversations of messages (WHATSAPP, FB_PM, IG_PM).
  if (
    META_WINDOW_CHANNELS.includes(claimed.channel as never) &&
    !q.template &&
    !windowOpen(Number(claimed.last_message_at))
  )
    return void (await settle(
      'failed',
      c.kind === 'whatsapp' ? CHANNEL_STRINGS.windowClosed : CHANNEL_STRINGS.metaWindowClosed(KIND_NAMES[c.kind]),
    ));
  const text = claimed.type === 'text/html' ? htmlToText(claimed.message) : claimed.message;
  // A comment thread's reply answers its latest comment (kept, every reply reads it); LINE's token is taken.
  const thread = POST_CHANNELS.includes(claimed.channel as never);
  const replyTo = thread ? await threadReplyTo(db, c, claimed.channel_peer) : undefined;
  const replyToken = thread ? undefined : await takeReplyToken(db, c, claimed.channel_peer);
  let providerId: string;
  try {
    providerId = await adapter.send(c, {
      messageId: m.id,
      peer: claimed.channel_peer,
      text,
      channel: claimed.channel,
      ...(q.template ? { template: q.template } : {}),
      ...(replyToken ? { replyToken } : {}),
      ...(replyTo ? { replyTo } : {}),
      ...(q.privately ? { privately: true } : {}),
    });
  } catch (err) {
    const words = err instanceof Error ? err.message : String(err);
    deps.log.warn({ connection: c.id, message: m.id, err: { message: words } }, 'channel reply not sent');
    const transient = !(err instanceof ProviderError) || err.transient;
    if (!transient || tries >= CHANNEL_SEND_TRIES) {
      await recordConnectionError(db, c, words);
      return void (await settle('failed', words));
    }
    await db
      .updateTable('messages')
      .set({ delivery_attempt_at: null, delivery_error: words })
      .where('account_id', '=', accountId)
      .where('id', '=', m.id)
      .where('delivery_attempt_at', '=', attemptAt)
      .execute();
    throw err;
  }
  await runCommand(db, async (trx) => {
    await trx
      .insertInto('channel_message_ids')
      .values({
        account_id: accountId,
        connection_id: c.id,
        provider_id: providerId,
        ticket_id: m.ticketId,
        message_row_id: m.id,
        direction: 'out',
        created_at: Date.now(),
      })
      .onConflict((oc) => oc.columns(['account_id', 'connection_id', 'provider_id']).doNothing())
      .execute();
    await setDelivery(trx, conversations, { ...m, state: 'sent', error: null }, { attemptAt });
  });
}

/** The comment or tweet a reply in a comment thread answers: the thread's latest (kept for the next reply). */
async function threadReplyTo(db: DB, c: OpenConnection, peer: string) {
  const row = await db
    .selectFrom('channel_reply_tokens')
    .select('token')
    .where('account_id', '=', c.accountId)
    .where('connection_id', '=', c.id)
    .where('peer', '=', peer)
    .executeTakeFirst();
  return row?.token;
}

/**
 * The peer's stored reply token, taken (deleted) so no other send uses it; answered only while fresh. Only
 * LINE stores them: for other channels this finds nothing.
 */
async function takeReplyToken(db: DB, c: OpenConnection, peer: string, now = Date.now()) {
  const row = await db
    .deleteFrom('channel_reply_tokens')
    .where('account_id', '=', c.accountId)
    .where('connection_id', '=', c.id)
    .where('peer', '=', peer)
    .returning(['token', 'at'])
    .executeTakeFirst();
  return row && now - Number(row.at) < REPLY_TOKEN_MS ? row.token : undefined;
}

/** The relay's sender of channel replies: unordered (a slow provider holds up nothing else). */
export function sendChannelReplies(deps: OutboundDeps): Listener {
  return {
    name: 'channels.sendReply',
    kind: 'effect',
    events: ['channel.reply_queued'],
    unordered: true,
    handle: (e) => sendChannelReply(deps, e.accountId, e.payload as ChannelReplyQueued, e.attempts + 1),
  };
}

/**
 * A failed channel reply sent again: `sending` once more and queued. 404 for another account's message,
 * 403 for a conversation the user may not read, 409 for a reply that has not failed.
 */
export async function retryChannelReply(
  db: DB,
  conversations: Conversations,
  auth: AuthContext,
  messageId: number,
): Promise<MessageDeliveryEvent> {
  return runCommand(db, async (trx) => {
    const row = await trx
      .selectFrom('messages as m')
      .innerJoin('tickets as t', (j) => j.onRef('t.id', '=', 'm.ticket_id').onRef('t.account_id', '=', 'm.account_id'))
      .select(['m.id', 'm.ticket_id', 'm.delivery_state', 't.channel'])
      .where('m.account_id', '=', auth.accountId)
      .where('m.id', '=', messageId)
      .where('m.deleted_at', 'is', null)
      .executeTakeFirst();
    if (!row) throw notFound(MESSAGE_STRINGS.messageNotFound);
    const m = { accountId: auth.accountId, id: Number(row.id), ticketId: Number(row.ticket_id), channel: row.channel };
    if (
      !(await conversations.canRead(trx, { id: m.ticketId, accountId: m.accountId, channel: m.channel }, auth.userId))
    )
      throw forbidden(MESSAGE_STRINGS.cannotRead);
    if (row.delivery_state !== 'failed') throw conflict(CHANNEL_STRINGS.notFailed);
    if (!(await setDelivery(trx, conversations, { ...m, state: 'sending', error: null })))
      throw conflict(CHANNEL_STRINGS.notFailed);
    await appendEvent(trx, {
      accountId: auth.accountId,
      type: 'channel.reply_queued',
      payload: { messageId: m.id, ticketId: m.ticketId } satisfies ChannelReplyQueued,
    });
    return { ticketId: m.ticketId, messageId: m.id, state: 'sending' as const, error: null };
  });
}

/** Sends a crash cut short (attempt recorded long ago, never settled): failed, for the agent to retry. */
export function failInterruptedChannelReplies(db: DB, conversations: Conversations, now = Date.now): Task {
  return {
    name: 'failInterruptedChannelReplies',
    everyMs: 60_000,
    async run() {
      const rows = await db
        .selectFrom('messages as m')
        .innerJoin('tickets as t', (j) =>
          j.onRef('t.id', '=', 'm.ticket_id').onRef('t.account_id', '=', 'm.account_id'),
        )
        .select(['m.id', 'm.account_id', 'm.ticket_id', 'm.delivery_attempt_at', 't.channel'])
        .where('m.delivery_attempt_at', 'is not', null)
        .where('m.delivery_attempt_at', '<', now() - CHANNEL_INTERRUPTED_MS)
        .limit(500)
        .execute();
      for (const r of rows)
        await runCommand(db, (trx) =>
          setDelivery(
            trx,
            conversations,
            {
              accountId: Number(r.account_id),
              id: Number(r.id),
              ticketId: Number(r.ticket_id),
              channel: r.channel,
              state: 'failed',
              error: CHANNEL_STRINGS.interrupted,
            },
            { attemptAt: Number(r.delivery_attempt_at) },
          ),
        );
    },
  };
}

import { randomBytes } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  CHANNEL_OF_KIND,
  CHANNEL_STRINGS,
  CHANNELS,
  EMAIL_STRINGS,
  ErrorCode,
  isDone,
  type MessageDeliveryEvent,
  type MessageFile,
  SENDERS,
  type SyncDeleteEvent,
  TICKET_STATUS,
} from '@parley/contracts';
import type pino from 'pino';
import type { DB } from '../../platform/db/db.js';
import { AppError, conflict, notFound } from '../../platform/http/errors.js';
import {
  appendEvent,
  appendEvents,
  type Listener,
  runCommand,
  type StoredEvent,
  type Trx,
} from '../../platform/outbox/index.js';
import type { Secrets } from '../email/index.js';
import { type Conversations, postMessage, storeUploads } from '../messages/index.js';
import { type Actor, changeTicketIn, createTicket } from '../tickets/index.js';
import type {
  ChannelAdapter,
  InboundMessage,
  OpenConnection,
  Parsed,
  StatusUpdate,
  WebhookRequest,
} from './adapter.js';
import { connectionByKey, findConnection, openConnection, recordConnectionError } from './connections.js';

export interface InboundDeps {
  db: DB;
  conversations: Conversations;
  secrets: Secrets | null;
  dataDir: string;
  adapters: Map<string, ChannelAdapter>;
  log: pino.Logger;
  /** Commits a verified webhook's event (see `webhookCommitter`). */
  takeWebhook: (accountId: number, w: WebhookReceived) => Promise<void>;
}

/** What `channel.webhook_received` carries: a verified webhook's messages and statuses, read once. */
export interface WebhookReceived extends Parsed {
  connectionId: number;
}

/** How long a status naming a reply we do not know yet is tried again (the send may not be recorded yet). */
const UNKNOWN_STATUS_RETRY_MS = 2 * 60_000;

/** The connection of a webhook address, opened, with its adapter; 404 for an unknown key. */
async function webhookConnection(deps: InboundDeps, key: string) {
  const row = await connectionByKey(deps.db, key);
  const adapter = row ? deps.adapters.get(row.kind) : undefined;
  if (!row || !adapter) throw notFound(CHANNEL_STRINGS.notFound);
  const open = openConnection(row, deps.secrets);
  if (!open) throw conflict(CHANNEL_STRINGS.cannotDecrypt);
  return { row, adapter, open };
}

/** A provider's GET handshake (WhatsApp's `hub.challenge`): the text to echo, else 403. */
export async function webhookHandshake(deps: InboundDeps, key: string, query: Record<string, unknown>) {
  const { adapter, open } = await webhookConnection(deps, key);
  const answer = adapter.handshake?.(query, open) ?? null;
  if (answer === null) throw new AppError(403, ErrorCode.forbidden, CHANNEL_STRINGS.badSignature);
  return { body: answer, type: adapter.handshakeType ?? 'text/plain; charset=utf-8' };
}

/**
 * A provider's webhook: proven by the adapter (401 otherwise), read (400 when it cannot be), and what it
 * says committed as one `channel.webhook_received` event before the answer, so a webhook acknowledged is
 * never lost to a crash. A switched-off connection's webhooks, and payloads with nothing for us (another
 * event type), are acknowledged and dropped. Answers how many messages and statuses were taken.
 */
export async function acceptWebhook(
  deps: InboundDeps,
  key: string,
  req: WebhookRequest,
): Promise<{ taken: number; answer: ChannelAdapter['webhookAnswer'] }> {
  const { row, adapter, open } = await webhookConnection(deps, key);
  if (!adapter.verify(req, open)) throw new AppError(401, ErrorCode.unauthorized, CHANNEL_STRINGS.badSignature);
  let parsed: Parsed;
  try {
    parsed = adapter.parse(req.rawBody, open);
  } catch {
    throw new AppError(400, ErrorCode.validation, CHANNEL_STRINGS.badPayload);
  }
  const answer = adapter.webhookAnswer;
  const taken = parsed.messages.length + parsed.statuses.length + (parsed.unsent?.length ?? 0);
  if (Number(row.active) !== 1 || taken === 0) return { taken: 0, answer };
  await deps.takeWebhook(Number(row.account_id), { connectionId: open.id, ...parsed });
  return { taken, answer };
}

/**
 * Commits taken webhooks in groups: the ones that arrive in one turn of the event loop (while the previous
 * group commits, on either database) go in one transaction, one event each, and each request is answered
 * once its group has committed. A transaction's commit costs more than an event's insert, so a burst of
 * webhooks costs a commit per group, not per webhook. A group that fails answers each of its requests with
 * that failure (the provider delivers them again).
 */
export function webhookCommitter(db: DB): (accountId: number, w: WebhookReceived) => Promise<void> {
  type Waiting = { accountId: number; w: WebhookReceived; resolve: () => void; reject: (e: unknown) => void };
  let queue: Waiting[] = [];
  let running = false;
  const flush = async () => {
    running = true;
    while (queue.length > 0) {
      const group = queue;
      queue = [];
      try {
        await runCommand(db, async (trx) => {
          const byAccount = new Map<number, Waiting[]>();
          for (const x of group) byAccount.set(x.accountId, [...(byAccount.get(x.accountId) ?? []), x]);
          for (const [accountId, list] of byAccount)
            await appendEvents(
              trx,
              accountId,
              list.map((x) => ({ accountId, type: 'channel.webhook_received', payload: x.w })),
            );
        });
        for (const x of group) x.resolve();
      } catch (err) {
        for (const x of group) x.reject(err);
      }
    }
    running = false;
  };
  return (accountId, w) =>
    new Promise<void>((resolve, reject) => {
      queue.push({ accountId, w, resolve, reject });
      if (!running) setImmediate(() => void flush());
      running = true;
    });
}

const serverActor = (accountId: number): Actor => ({ accountId, userId: null, username: 'server', name: 'Parley' });

async function knownProviderId(q: DB | Trx, c: OpenConnection, providerId: string, direction: 'in' | 'out') {
  return q
    .selectFrom('channel_message_ids')
    .select(['message_row_id', 'ticket_id'])
    .where('account_id', '=', c.accountId)
    .where('connection_id', '=', c.id)
    .where('provider_id', '=', providerId)
    .where('direction', '=', direction)
    .executeTakeFirst();
}

/** The file of a message fetched from the provider and stored as an upload; a note instead when it fails. */
async function fetchFile(deps: InboundDeps, adapter: ChannelAdapter, c: OpenConnection, m: InboundMessage) {
  if (!m.media || !adapter.fetchMedia) return { files: [] as MessageFile[], note: '' };
  const incoming = path.join(deps.dataDir, 'uploads', 'incoming');
  const tmp = path.join(incoming, `channel-${randomBytes(12).toString('hex')}`);
  try {
    const bytes = await adapter.fetchMedia(c, m.media.id);
    await mkdir(incoming, { recursive: true });
    await writeFile(tmp, bytes);
    const files = await storeUploads(deps.db, deps.dataDir, { accountId: c.accountId, userId: null }, null, [
      { name: m.media.name, path: tmp, size: bytes.length },
    ]);
    return { files, note: '' };
  } catch (err) {
    return { files: [], note: EMAIL_STRINGS.attachmentNotStored(m.media.name, (err as Error).message) };
  } finally {
    await rm(tmp, { force: true });
  }
}

/** The ticket channel of a customer's message: its own (a comment, a mention) or the connection kind's. */
const channelOf = (c: OpenConnection, m: InboundMessage) => m.channel ?? CHANNEL_OF_KIND[c.kind];

/** The peer's latest ticket on the connection and channel (an X user's DMs and mentions are two), if any. */
const lastTicketOf = (q: DB | Trx, c: OpenConnection, m: InboundMessage) =>
  q
    .selectFrom('tickets')
    .select(['id', 'closed', 'name'])
    .where('account_id', '=', c.accountId)
    .where('channel_connection_id', '=', c.id)
    .where('channel', '=', channelOf(c, m))
    .where('channel_peer', '=', m.peer)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();

/**
 * The customer's name asked of the provider (LINE's profile) when the webhook gave none and the message
 * starts a ticket; '' when it cannot be had (a failure must not hold up the message).
 */
async function askedName(deps: InboundDeps, adapter: ChannelAdapter, c: OpenConnection, m: InboundMessage) {
  if (m.name || !adapter.profileName || (await lastTicketOf(deps.db, c, m))) return '';
  try {
    return await adapter.profileName(c, m.peer);
  } catch (err) {
    deps.log.warn({ connection: c.id, err: { message: (err as Error).message } }, 'channel profile not read');
    return '';
  }
}

/** The text of a message the webhook named only by id (an Instagram mention); undefined when not asked or not had. */
async function askedText(deps: InboundDeps, adapter: ChannelAdapter, c: OpenConnection, m: InboundMessage) {
  if (!m.incomplete || !adapter.complete) return undefined;
  try {
    return await adapter.complete(c, m);
  } catch (err) {
    deps.log.warn({ connection: c.id, err: { message: (err as Error).message } }, 'channel message not completed');
    return undefined;
  }
}

/**
 * The post a comment that starts a ticket is under, in words (its text and link); only the link when its text
 * cannot be had. Undefined when the comment joins a ticket that has it already.
 */
async function askedContext(deps: InboundDeps, adapter: ChannelAdapter, c: OpenConnection, m: InboundMessage) {
  if (!m.context || (await lastTicketOf(deps.db, c, m))) return undefined;
  let text = '';
  try {
    text = (await adapter.contextText?.(c, m.context.id)) ?? '';
  } catch (err) {
    deps.log.warn({ connection: c.id, err: { message: (err as Error).message } }, 'channel post not read');
  }
  return CHANNEL_STRINGS.postContext(text, m.context.link);
}

/** What `prepare` fetched from the provider for one message: its file (or a note why not), a name. */
interface Fetched {
  files: MessageFile[];
  note: string;
  name: string;
  /** The text of a message the webhook named only by id (`incomplete`). */
  text?: string;
  /** The post a comment that starts a ticket is under, as its first message. */
  context?: string;
}

/**
 * One customer message stored once, inside the caller's transaction: a provider id already recorded is
 * skipped (a webhook delivered again), else the id is recorded with the message (its unique index stops
 * another node's copy). It joins the peer's latest ticket on this connection (reopened when done), or
 * starts one.
 */
export async function storeInbound(
  trx: Trx,
  conversations: Conversations,
  c: OpenConnection,
  departmentId: number | null,
  m: InboundMessage,
  file: Fetched,
): Promise<'stored' | 'duplicate'> {
  if (await knownProviderId(trx, c, m.providerId, 'in')) return 'duplicate';
  const channel = channelOf(c, m);
  const last = await lastTicketOf(trx, c, m);
  // A provider that names no one (LINE after the first message): the name the ticket already has.
  const name = m.name || file.name || last?.name || m.phone || m.peer;
  const text = file.text ?? m.text;
  let ticketId: number;
  if (!last) {
    ticketId = await createTicket(trx, conversations, {
      accountId: c.accountId,
      channel,
      title: (text.split('\n')[0] ?? '').slice(0, 120) || `${CHANNELS[channel]}: ${name}`,
      name,
      ...(m.phone ? { phone: m.phone } : {}),
      departmentId,
      fromCustomer: true,
      at: m.at,
      channelConnectionId: c.id,
      channelPeer: m.peer,
    });
    // A comment thread shows the post it is under first: the server's message, which never goes out.
    if (m.context)
      await postMessage(trx, conversations, {
        accountId: c.accountId,
        ticketId,
        sender: SENDERS.server,
        senderName: CHANNELS[channel],
        type: 'text',
        message: file.context ?? CHANNEL_STRINGS.postContext('', m.context.link),
        fromCustomer: false,
        channel,
      });
  } else {
    ticketId = Number(last.id);
    if (isDone(Number(last.closed)))
      await changeTicketIn(trx, conversations, serverActor(c.accountId), ticketId, async () => ({
        set: { closed: TICKET_STATUS.open },
        message: EMAIL_STRINGS.reopened,
        action: 'ticket.status_set',
        detail: { status: TICKET_STATUS.open, reason: 'customer_message' },
      }));
  }
  const event = await postMessage(trx, conversations, {
    accountId: c.accountId,
    ticketId,
    sender: SENDERS.visitor,
    senderName: name,
    type: 'text',
    message: [text, file.note].filter(Boolean).join('\n'),
    files: file.files,
    fromCustomer: true,
    channel,
  });
  await trx
    .insertInto('channel_message_ids')
    .values({
      account_id: c.accountId,
      connection_id: c.id,
      provider_id: m.providerId,
      ticket_id: ticketId,
      message_row_id: event.id,
      direction: 'in',
      created_at: Date.now(),
    })
    .execute();
  // LINE's reply token, or the comment or tweet a reply in this thread answers: the latest wins.
  const token = m.replyToken ?? m.replyTo;
  if (token)
    await trx
      .insertInto('channel_reply_tokens')
      .values({ account_id: c.accountId, connection_id: c.id, peer: m.peer, token, at: m.at })
      .onConflict((oc) =>
        oc
          .columns(['account_id', 'connection_id', 'peer'])
          .doUpdateSet((eb) => ({ token: eb.ref('excluded.token'), at: eb.ref('excluded.at') }))
          .whereRef('channel_reply_tokens.at', '<', 'excluded.at'),
      )
      .execute();
  return 'stored';
}

/**
 * A customer's message they took back (LINE's unsend), inside the caller's transaction: hidden as a deleted
 * message is (`deleted_at`, by the customer), and `syncDelete` to whoever has the conversation open. One not
 * stored (never, or already hidden) is left alone.
 */
export async function hideUnsent(trx: Trx, conversations: Conversations, c: OpenConnection, providerId: string) {
  const known = await knownProviderId(trx, c, providerId, 'in');
  if (!known || known.message_row_id === null) return;
  const m = await trx
    .selectFrom('messages as m')
    .innerJoin('tickets as t', (j) => j.onRef('t.id', '=', 'm.ticket_id').onRef('t.account_id', '=', 'm.account_id'))
    .select(['m.id', 'm.ticket_id', 'm.sender', 't.channel'])
    .where('m.account_id', '=', c.accountId)
    .where('m.id', '=', Number(known.message_row_id))
    .where('m.deleted_at', 'is', null)
    .executeTakeFirst();
  if (!m) return;
  await trx
    .updateTable('messages')
    .set({ deleted_at: Date.now(), deleted_by: m.sender, pinned: 0 })
    .where('account_id', '=', c.accountId)
    .where('id', '=', Number(m.id))
    .execute();
  const audience = { id: Number(m.ticket_id), accountId: c.accountId, channel: m.channel };
  await appendEvent(trx, {
    accountId: c.accountId,
    type: 'message.deleted',
    payload: { ticketId: Number(m.ticket_id), messageId: Number(m.id) } satisfies SyncDeleteEvent,
    realtime: { name: 'syncDelete', rooms: await conversations.messageAudience(trx, audience) },
  });
}

/** sending < sent < delivered < read: a status never moves a reply back (providers report out of order). */
const RANK: Record<string, number> = { sending: 0, sent: 1, delivered: 2, read: 3 };

/**
 * A delivery status of one of our replies, inside the caller's transaction: moves its state forward (failed
 * only from sending or sent) and tells the conversation's staff (`messageDelivery`). Answers false when the
 * reply is not known (yet).
 */
export async function applyStatus(trx: Trx, conversations: Conversations, c: OpenConnection, s: StatusUpdate) {
  const known = await knownProviderId(trx, c, s.providerId, 'out');
  if (!known || known.message_row_id === null) return false;
  const messageId = Number(known.message_row_id);
  const m = await trx
    .selectFrom('messages as m')
    .innerJoin('tickets as t', (j) => j.onRef('t.id', '=', 'm.ticket_id').onRef('t.account_id', '=', 'm.account_id'))
    .select(['m.delivery_state', 't.channel', 't.id as ticket_id'])
    .where('m.account_id', '=', c.accountId)
    .where('m.id', '=', messageId)
    .executeTakeFirst();
  if (!m) return true;
  const now = m.delivery_state ?? 'sending';
  const forward = s.state === 'failed' ? now === 'sending' || now === 'sent' : (RANK[s.state] ?? 0) > (RANK[now] ?? 99);
  if (forward)
    await setDelivery(trx, conversations, {
      accountId: c.accountId,
      id: messageId,
      ticketId: Number(m.ticket_id),
      channel: m.channel,
      state: s.state,
      error: s.error ?? null,
    });
  return true;
}

/** Records a reply's delivery state and tells the conversation's staff (`messageDelivery`). */
export async function setDelivery(
  trx: Trx,
  conversations: Conversations,
  m: {
    accountId: number;
    id: number;
    ticketId: number;
    channel: string;
    state: MessageDeliveryEvent['state'];
    error: string | null;
  },
  extra: { attemptAt?: number | null } = {},
): Promise<boolean> {
  let q = trx
    .updateTable('messages')
    .set({ delivery_state: m.state, delivery_error: m.error, delivery_attempt_at: null })
    .where('account_id', '=', m.accountId)
    .where('id', '=', m.id);
  if (extra.attemptAt !== undefined)
    q =
      extra.attemptAt === null
        ? q.where('delivery_attempt_at', 'is', null)
        : q.where('delivery_attempt_at', '=', extra.attemptAt);
  const r = await q.executeTakeFirst();
  if (Number(r.numUpdatedRows) !== 1) return false;
  const rooms = await conversations.staffAudience(trx, { id: m.ticketId, accountId: m.accountId, channel: m.channel });
  await appendEvent(trx, {
    accountId: m.accountId,
    type: 'message.delivery_changed',
    payload: { ticketId: m.ticketId, messageId: m.id, state: m.state, error: m.error } satisfies MessageDeliveryEvent,
    realtime: { name: 'messageDelivery', rooms },
  });
  return true;
}

/**
 * The relay's reader of webhooks taken: transactional, so the messages of many webhooks are stored in the
 * relay's batch transaction, in the order the provider sent them, each exactly once (its provider id). Files
 * are fetched from the provider before the transaction opens (`prepare`). A status of a reply not recorded yet
 * is tried again for a while (the send's answer may still be on its way).
 */
export function storeWebhooks(deps: InboundDeps): Listener {
  const connectionOf = async (q: DB | Trx, e: StoredEvent) => {
    const p = e.payload as WebhookReceived;
    const row = await findConnection(q, e.accountId, p.connectionId);
    const adapter = row ? deps.adapters.get(row.kind) : undefined;
    const c = row && adapter ? openConnection(row, deps.secrets) : null;
    return row && adapter && c ? { row, adapter, c, p } : null;
  };
  return {
    name: 'channels.storeWebhook',
    kind: 'transactional',
    events: ['channel.webhook_received'],
    async prepare(e) {
      const p = e.payload as WebhookReceived;
      const fetched = new Map<string, Fetched>();
      const found = await connectionOf(deps.db, e);
      if (!found || (!found.adapter.profileName && !p.messages.some((m) => m.media || m.context || m.incomplete)))
        return fetched;
      // One profile asked per customer, however many of their messages the webhook carries.
      const names = new Map<string, string>();
      for (const m of p.messages) {
        if (await knownProviderId(deps.db, found.c, m.providerId, 'in')) continue;
        const file = await fetchFile(deps, found.adapter, found.c, m);
        const asked = await askedText(deps, found.adapter, found.c, m);
        if (!names.has(m.peer)) names.set(m.peer, asked?.name || (await askedName(deps, found.adapter, found.c, m)));
        const context = await askedContext(deps, found.adapter, found.c, m);
        fetched.set(m.providerId, {
          ...file,
          name: names.get(m.peer) ?? '',
          ...(asked?.text ? { text: asked.text } : {}),
          ...(context !== undefined ? { context } : {}),
        });
      }
      return fetched;
    },
    async handle(e, trx, prepared) {
      const found = await connectionOf(trx, e);
      if (!found) {
        const p = e.payload as WebhookReceived;
        const row = await findConnection(trx, e.accountId, p.connectionId);
        if (row)
          await recordConnectionError(
            deps.db,
            { id: Number(row.id), accountId: e.accountId },
            CHANNEL_STRINGS.cannotDecrypt,
          );
        return;
      }
      const { row, c, p } = found;
      const fetched = (prepared as Map<string, Fetched> | undefined) ?? new Map<string, Fetched>();
      const departmentId = row.department_id === null ? null : Number(row.department_id);
      for (const m of p.messages)
        await storeInbound(
          trx,
          deps.conversations,
          c,
          departmentId,
          m,
          fetched.get(m.providerId) ?? { files: [], note: '', name: '' },
        );
      for (const id of p.unsent ?? []) await hideUnsent(trx, deps.conversations, c, id);
      let unknown = 0;
      for (const s of p.statuses) if (!(await applyStatus(trx, deps.conversations, c, s))) unknown++;
      if (unknown > 0 && Date.now() - e.createdAt < UNKNOWN_STATUS_RETRY_MS)
        throw new Error(`${unknown} delivery statuses name replies not recorded yet`);
      await trx
        .updateTable('channel_connections')
        .set({ last_event_at: Date.now() })
        .where('account_id', '=', c.accountId)
        .where('id', '=', c.id)
        .execute();
    },
  };
}

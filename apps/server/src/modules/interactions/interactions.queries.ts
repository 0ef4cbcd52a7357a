import {
  CHANNEL_ALIASES,
  CHANNEL_CODES,
  type Interaction,
  type InteractionKind,
  type InteractionsQuery,
  interactionExcerpt,
  WORKSPACE_CHANNEL,
} from '@parley/contracts';
import { type Expression, type ExpressionBuilder, type SqlBool, sql } from 'kysely';
import { type DB, likeEscape } from '../../platform/db/db.js';
import type { Database } from '../../platform/db/schema.js';
import type { Conversations } from '../messages/index.js';
import { ticketVisibleTo } from '../tickets/index.js';

/** Who asks: the account, the user (the ticket list's visibility rule and the conversations' read rule). */
export interface InteractionsViewer {
  accountId: number;
  userId: number;
}

/** The plan of one read, with the agent's username resolved to the user (checked to be the account's). */
export interface InteractionsPlan extends Omit<InteractionsQuery, 'agent'> {
  agent?: { id: number; username: string };
}

/**
 * The tables items come from, each a number in the cursor so that items of the same millisecond still have
 * one total order: time, then source, then the row's id, all newest (largest) first.
 */
const SOURCE = { message: 1, ticketNote: 2, messageNote: 3, liveChat: 4, call: 5 } as const;
type Source = (typeof SOURCE)[keyof typeof SOURCE];

interface Cursor {
  at: number;
  src: number;
  id: number;
}
const parseCursor = (s: string | undefined): Cursor | null => {
  if (!s) return null;
  const [at, src, id] = s.split('-').map(Number);
  return { at: at!, src: src!, id: id! };
};
const keyOf = (at: number, src: Source, id: number) => `${at}-${src}-${id}`;

/** One row read from a source, before it is checked and shaped. */
interface Row {
  src: Source;
  id: number;
  at: number;
  kind: InteractionKind;
  username: string;
  name: string;
  channel: string;
  ticketId: number | null;
  ticketNumber: number | null;
  title: string;
  text: string;
  encrypted: boolean;
  state: string;
  duration: number;
}

type AnyEb = ExpressionBuilder<any, any>;

/** Strictly after the cursor in the list's order, for the rows of one source. */
function afterCursor(eb: AnyEb, c: Cursor | null, src: Source, at: string, id: string): Expression<SqlBool> {
  if (!c) return eb.lit(true);
  if (src < c.src) return eb(at, '<=', c.at);
  if (src > c.src) return eb(at, '<', c.at);
  return eb.or([eb(at, '<', c.at), eb.and([eb(at, '=', c.at), eb(id, '<', c.id)])]);
}

/** The channels an item may be on: those with a read rule, never Workspace chats, within the channel filter. */
function channelsOf(conversations: Conversations, filter: readonly string[] | undefined): string[] {
  const wanted = new Set(filter ?? CHANNEL_CODES);
  for (const [alias, code] of Object.entries(CHANNEL_ALIASES)) {
    if (wanted.has(alias)) wanted.add(code);
    if (wanted.has(code)) wanted.add(alias);
  }
  return [...wanted].filter((c) => c !== WORKSPACE_CHANNEL && conversations.covers(c));
}

/** `text` contains the words (any case), escaped: the user's `%` and `_` are plain characters. */
const contains = (e: Expression<unknown> | ReturnType<typeof sql>, q: string) =>
  sql<SqlBool>`lower(${e}) like ${`%${likeEscape(q.toLowerCase())}%`} escape '!'`;

/** The ticket's assignee list holds the username (`assignee` is a comma-separated list of usernames). */
const assignedTo = (username: string) =>
  sql<SqlBool>`(',' || tickets.assignee || ',') like ${`%,${likeEscape(username)},%`} escape '!'`;

/**
 * The conditions every ticket-backed source shares: the account, the ticket list's visibility rule, the
 * channels, the date range.
 */
function ticketScope(eb: AnyEb, v: InteractionsViewer, channels: string[]): Expression<SqlBool>[] {
  return [
    eb('tickets.account_id', '=', v.accountId),
    ticketVisibleTo(eb as ExpressionBuilder<Database, 'tickets'>, v),
    eb('tickets.channel', 'in', channels),
  ];
}
function range(eb: AnyEb, p: InteractionsPlan, at: string): Expression<SqlBool>[] {
  const out: Expression<SqlBool>[] = [];
  if (p.from !== undefined) out.push(eb(at, '>=', p.from));
  if (p.to !== undefined) out.push(eb(at, '<', p.to));
  return out;
}

const wants = (p: InteractionsPlan, ...kinds: InteractionKind[]) =>
  !p.kind?.length || kinds.some((k) => p.kind!.includes(k));

/** Customer messages, the team's messages and system messages (changes). */
async function messages(db: DB, v: InteractionsViewer, p: InteractionsPlan, channels: string[], c: Cursor | null) {
  const kinds = (['in', 'out', 'change'] as const).filter((k) => wants(p, k));
  if (!kinds.length) return [];
  const rows = await db
    .selectFrom('messages')
    .innerJoin('tickets', (j) =>
      j.onRef('tickets.id', '=', 'messages.ticket_id').onRef('tickets.account_id', '=', 'messages.account_id'),
    )
    .select([
      'messages.id',
      'messages.created_at as at',
      'messages.type',
      'messages.sender',
      'messages.sender_name',
      'messages.message',
      'tickets.id as ticket_id',
      'tickets.ticket_number',
      'tickets.title',
      'tickets.channel',
      'tickets.encryption_method',
    ])
    .where((eb) => {
      const all = [
        eb('messages.account_id', '=', v.accountId),
        eb('messages.deleted_at', 'is', null),
        ...ticketScope(eb, v, channels),
        ...range(eb, p, 'messages.created_at'),
        afterCursor(eb, c, SOURCE.message, 'messages.created_at', 'messages.id'),
      ];
      const byKind: Expression<SqlBool>[] = [];
      const agent = p.agent?.username;
      for (const k of kinds) {
        const parts: Expression<SqlBool>[] =
          k === 'change'
            ? [eb('messages.type', '=', 'system')]
            : [eb('messages.type', '!=', 'system'), eb('messages.sender', k === 'in' ? '=' : '!=', 'visitor')];
        // The agent's own messages; customers' messages and changes on conversations assigned to them.
        if (agent) parts.push(k === 'out' ? eb('messages.sender', '=', agent) : assignedTo(agent));
        byKind.push(eb.and(parts));
      }
      all.push(eb.or(byKind));
      if (p.q)
        all.push(
          eb.or([
            eb.and([eb('tickets.encryption_method', '=', ''), contains(eb.ref('messages.message'), p.q)]),
            contains(eb.ref('tickets.title'), p.q),
          ]),
        );
      return eb.and(all);
    })
    .orderBy('messages.created_at', 'desc')
    .orderBy('messages.id', 'desc')
    .limit(p.limit + 1)
    .execute();
  return rows.map(
    (r): Row => ({
      src: SOURCE.message,
      id: Number(r.id),
      at: Number(r.at),
      kind: r.type === 'system' ? 'change' : r.sender === 'visitor' ? 'in' : 'out',
      username: r.type === 'system' || r.sender === 'visitor' || r.sender === 'server' ? '' : r.sender,
      name: r.type === 'system' ? '' : r.sender_name || r.sender,
      channel: r.channel,
      ticketId: Number(r.ticket_id),
      ticketNumber: Number(r.ticket_number),
      title: r.title,
      text: r.message,
      encrypted: r.encryption_method !== '' && r.type !== 'system',
      state: '',
      duration: 0,
    }),
  );
}

/** Internal notes: on the ticket as a whole (`ticket_notes`) or on one message (`message_notes`). */
async function notes(
  db: DB,
  v: InteractionsViewer,
  p: InteractionsPlan,
  channels: string[],
  c: Cursor | null,
  table: 'ticket_notes' | 'message_notes',
) {
  if (!wants(p, 'note')) return [];
  const src = table === 'ticket_notes' ? SOURCE.ticketNote : SOURCE.messageNote;
  const t = table as 'ticket_notes';
  const rows = await db
    .selectFrom(t)
    .innerJoin('tickets', (j) =>
      j.onRef('tickets.id', '=', `${t}.ticket_id`).onRef('tickets.account_id', '=', `${t}.account_id`),
    )
    .leftJoin('users', (j) =>
      j.onRef('users.account_id', '=', `${t}.account_id`).onRef('users.username', '=', `${t}.sender`),
    )
    .select([
      `${t}.id`,
      `${t}.created_at as at`,
      `${t}.sender`,
      `${t}.text`,
      'users.name as user_name',
      'tickets.id as ticket_id',
      'tickets.ticket_number',
      'tickets.title',
      'tickets.channel',
      'tickets.encryption_method',
    ])
    .where((eb) => {
      const all = [
        eb(`${t}.account_id`, '=', v.accountId),
        ...ticketScope(eb, v, channels),
        ...range(eb, p, `${t}.created_at`),
        afterCursor(eb, c, src, `${t}.created_at`, `${t}.id`),
      ];
      if (p.agent) all.push(eb(`${t}.sender`, '=', p.agent.username));
      if (p.q)
        all.push(
          eb.or([
            eb.and([eb('tickets.encryption_method', '=', ''), contains(eb.ref(`${t}.text`), p.q)]),
            contains(eb.ref('tickets.title'), p.q),
          ]),
        );
      return eb.and(all);
    })
    .orderBy(`${t}.created_at`, 'desc')
    .orderBy(`${t}.id`, 'desc')
    .limit(p.limit + 1)
    .execute();
  return rows.map(
    (r): Row => ({
      src,
      id: Number(r.id),
      at: Number(r.at),
      kind: 'note',
      username: r.sender,
      name: r.user_name || r.sender,
      channel: r.channel,
      ticketId: Number(r.ticket_id),
      ticketNumber: Number(r.ticket_number),
      title: r.title,
      text: r.text,
      encrypted: r.encryption_method !== '',
      state: '',
      duration: 0,
    }),
  );
}

/** Live chats by the time the visitor started them; one still waiting has no ticket yet. */
async function liveChats(db: DB, v: InteractionsViewer, p: InteractionsPlan, channels: string[], c: Cursor | null) {
  if (!wants(p, 'livechat') || !channels.includes('LIVECHAT')) return [];
  const rows = await db
    .selectFrom('livechats')
    .leftJoin('tickets', (j) =>
      j.onRef('tickets.id', '=', 'livechats.ticket_id').onRef('tickets.account_id', '=', 'livechats.account_id'),
    )
    .leftJoin('users', (j) =>
      j.onRef('users.account_id', '=', 'livechats.account_id').onRef('users.username', '=', 'livechats.agent'),
    )
    .select([
      'livechats.id',
      'livechats.queued_at as at',
      'livechats.agent',
      'livechats.name',
      'livechats.message',
      'livechats.state',
      'users.name as user_name',
      'tickets.id as ticket_id',
      'tickets.ticket_number',
      'tickets.title',
      'tickets.channel',
      'tickets.encryption_method',
    ])
    .where((eb) => {
      const all = [
        eb('livechats.account_id', '=', v.accountId),
        // A chat taken is seen as its ticket is; one in the queue is every agent's to see.
        eb.or([
          eb('livechats.ticket_id', 'is', null),
          eb.and([
            eb('tickets.id', 'is not', null),
            ticketVisibleTo(eb as ExpressionBuilder<Database, 'tickets'>, v),
            eb('tickets.channel', 'in', channels),
          ]),
        ]),
        ...range(eb, p, 'livechats.queued_at'),
        afterCursor(eb, c, SOURCE.liveChat, 'livechats.queued_at', 'livechats.id'),
      ];
      if (p.agent) all.push(eb('livechats.agent', '=', p.agent.username));
      if (p.q)
        all.push(
          eb.or([
            contains(eb.ref('livechats.name'), p.q),
            eb.and([
              eb.or([eb('tickets.encryption_method', 'is', null), eb('tickets.encryption_method', '=', '')]),
              contains(eb.ref('livechats.message'), p.q),
            ]),
          ]),
        );
      return eb.and(all);
    })
    .orderBy('livechats.queued_at', 'desc')
    .orderBy('livechats.id', 'desc')
    .limit(p.limit + 1)
    .execute();
  return rows.map(
    (r): Row => ({
      src: SOURCE.liveChat,
      id: Number(r.id),
      at: Number(r.at),
      kind: 'livechat',
      username: r.agent,
      name: r.agent ? r.user_name || r.agent : '',
      channel: r.channel ?? 'LIVECHAT',
      ticketId: r.ticket_id === null ? null : Number(r.ticket_id),
      ticketNumber: r.ticket_number === null ? null : Number(r.ticket_number),
      title: r.title ?? r.name,
      text: r.message,
      encrypted: !!r.encryption_method,
      state: r.state,
      duration: 0,
    }),
  );
}

/** Calls by the time they started, with the agent whose softphone reported them. */
async function calls(db: DB, v: InteractionsViewer, p: InteractionsPlan, channels: string[], c: Cursor | null) {
  if (!wants(p, 'call')) return [];
  const rows = await db
    .selectFrom('calls')
    .innerJoin('tickets', (j) =>
      j.onRef('tickets.id', '=', 'calls.ticket_id').onRef('tickets.account_id', '=', 'calls.account_id'),
    )
    .leftJoin('users', (j) =>
      j.onRef('users.account_id', '=', 'calls.account_id').onRef('users.id', '=', 'calls.user_id'),
    )
    .select([
      'calls.id',
      'calls.started_at as at',
      'calls.duration',
      'users.username',
      'users.name as user_name',
      'tickets.id as ticket_id',
      'tickets.ticket_number',
      'tickets.title',
      'tickets.channel',
      'tickets.name',
      'tickets.phone',
      'tickets.call_direction',
      'tickets.encryption_method',
    ])
    .where((eb) => {
      const all = [
        eb('calls.account_id', '=', v.accountId),
        ...ticketScope(eb, v, channels),
        ...range(eb, p, 'calls.started_at'),
        afterCursor(eb, c, SOURCE.call, 'calls.started_at', 'calls.id'),
      ];
      if (p.agent) all.push(eb('calls.user_id', '=', p.agent.id));
      if (p.q)
        all.push(
          eb.or([
            contains(eb.ref('tickets.title'), p.q),
            contains(eb.ref('tickets.name'), p.q),
            contains(eb.ref('tickets.phone'), p.q),
          ]),
        );
      return eb.and(all);
    })
    .orderBy('calls.started_at', 'desc')
    .orderBy('calls.id', 'desc')
    .limit(p.limit + 1)
    .execute();
  return rows.map(
    (r): Row => ({
      src: SOURCE.call,
      id: Number(r.id),
      at: Number(r.at),
      kind: 'call',
      username: r.username ?? '',
      name: r.username ? r.user_name || r.username : '',
      channel: r.channel,
      ticketId: Number(r.ticket_id),
      ticketNumber: Number(r.ticket_number),
      title: r.title,
      text: [r.name, r.phone].filter((x) => x.trim() !== '').join(', '),
      encrypted: false,
      state: r.call_direction,
      duration: Number(r.duration),
    }),
  );
}

/**
 * One page of the account's interactions, newest first. Each source reads at most `limit + 1` rows after
 * the cursor in the shared order; the page is the first `limit` of their merge, which is exactly the first
 * `limit` of the whole list. Each item's conversation is then checked with `Conversations.canRead`, so a
 * read rule stricter than the SQL's still decides.
 */
export async function listInteractions(
  db: DB,
  conversations: Conversations,
  v: InteractionsViewer,
  p: InteractionsPlan,
): Promise<{ data: Interaction[]; next: string | null }> {
  const channels = channelsOf(conversations, p.channel);
  if (!channels.length) return { data: [], next: null };
  const c = parseCursor(p.before);
  const parts = await Promise.all([
    messages(db, v, p, channels, c),
    notes(db, v, p, channels, c, 'ticket_notes'),
    notes(db, v, p, channels, c, 'message_notes'),
    liveChats(db, v, p, channels, c),
    calls(db, v, p, channels, c),
  ]);
  const merged = parts.flat().sort((a, b) => b.at - a.at || b.src - a.src || b.id - a.id);
  const page = merged.slice(0, p.limit);
  const last = page.at(-1);
  const next = merged.length > p.limit && last ? keyOf(last.at, last.src, last.id) : null;
  const readable = new Map<number, boolean>();
  const data: Interaction[] = [];
  for (const r of page) {
    if (r.ticketId !== null) {
      let ok = readable.get(r.ticketId);
      if (ok === undefined) {
        ok = await conversations.canRead(db, { id: r.ticketId, accountId: v.accountId, channel: r.channel }, v.userId);
        readable.set(r.ticketId, ok);
      }
      if (!ok) continue;
    }
    data.push({
      key: keyOf(r.at, r.src, r.id),
      kind: r.kind,
      at: r.at,
      username: r.username,
      name: r.name,
      channel: r.channel,
      ticketId: r.ticketId,
      ticketNumber: r.ticketNumber,
      title: r.title,
      // Encrypted content never leaves the server, not even cut short.
      text: r.encrypted ? '' : interactionExcerpt(r.text),
      encrypted: r.encrypted,
      state: r.state,
      duration: r.duration,
    });
  }
  return { data, next };
}

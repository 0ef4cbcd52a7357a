import {
  type ActivityItem,
  contactField,
  contactUid,
  DONE_TICKET_STATUSES,
  expLevel,
  PROFILE_ACTIVITY_PAGE,
  PROFILE_LIST_PAGE,
  PROFILE_STRINGS,
  type ProfileData,
  type ProfileListItem,
  parseContactUid,
  TICKET_LIST_TYPES,
} from '@parley/contracts';
import { type Expression, type ExpressionBuilder, type SqlBool, sql } from 'kysely';
import { type DB, likeEscape } from '../../platform/db/db.js';
import type { Database } from '../../platform/db/schema.js';
import { notFound } from '../../platform/http/errors.js';

/** Who asks: every query is scoped to this account; read state is the asker's own. */
export interface Viewer {
  accountId: number;
  userId: number;
  admin: boolean;
}

/**
 * Whose profile: a user of the account (tickets assigned to them, messages they wrote) or a contact (the
 * tickets with its address, number or ticket number, and the customer's messages on them).
 */
export type Subject =
  | { kind: 'user'; id: number; username: string; data: ProfileData }
  | { kind: 'contact'; field: 'email' | 'phone' | 'ticket'; value: string; data: ProfileData };

type TicketEb = ExpressionBuilder<Database, 'tickets'>;

const INTERNAL = TICKET_LIST_TYPES.chat.only;
const noSuchPerson = () => notFound(PROFILE_STRINGS.noProfile);

/** The tickets that belong to the subject, never a Workspace chat. */
function ofSubject(eb: TicketEb, accountId: number, s: Subject) {
  const all: Expression<SqlBool>[] = [
    eb('tickets.account_id', '=', accountId),
    eb('tickets.channel', 'not in', [...INTERNAL]),
  ];
  if (s.kind === 'user') {
    // `assignee` is a comma-separated list of usernames.
    const pattern = `%,${s.username.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`)},%`;
    all.push(sql<SqlBool>`(',' || lower(tickets.assignee) || ',') like ${pattern} escape '!'`);
  } else if (s.field === 'email') all.push(eb(sql`lower(tickets.email)`, '=', s.value.toLowerCase()));
  else if (s.field === 'phone') all.push(eb('tickets.phone', '=', s.value));
  else all.push(eb('tickets.ticket_number', '=', Number(s.value)));
  return eb.and(all);
}

async function userSubject(db: DB, viewer: Viewer, username: string): Promise<Subject> {
  const u = await db
    .selectFrom('users')
    .select(['id', 'username', 'name', 'email', 'type', 'status', 'second_status', 'photo'])
    .where('account_id', '=', viewer.accountId)
    .where(sql`lower(username)`, '=', username.toLowerCase())
    .executeTakeFirst();
  if (!u) throw noSuchPerson();
  return {
    kind: 'user',
    id: Number(u.id),
    username: u.username,
    data: {
      kind: 'user',
      name: u.name,
      uid: u.username,
      username: u.username,
      type: u.type,
      photo: u.photo ?? '',
      // Addresses of colleagues are for admins only; contacts' addresses are on their tickets anyway.
      email: viewer.admin ? u.email : '',
      phone: '',
      status: u.second_status || u.status,
      channel: '',
    },
  };
}

/** A `username` of the list call: a user's username or a contact's uid (`email:`, `phone:`, `ticket:`). */
export async function resolveSubject(db: DB, viewer: Viewer, username: string): Promise<Subject> {
  const c = parseContactUid(username);
  if (!c) return userSubject(db, viewer, username);
  if (c.field === 'ticket' && !/^\d{1,15}$/.test(c.value)) throw noSuchPerson();
  const partial: Subject = {
    kind: 'contact',
    field: c.field,
    value: c.value,
    data: {
      kind: 'contact',
      name: '',
      uid: username,
      username,
      type: 'contact',
      photo: '',
      email: '',
      phone: '',
      status: '',
      channel: '',
    },
  };
  const t = await db
    .selectFrom('tickets')
    .select(['name', 'email', 'phone', 'channel'])
    .where((eb) => ofSubject(eb, viewer.accountId, partial))
    .orderBy('tickets.updated_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!t) throw noSuchPerson();
  return { ...partial, data: { ...partial.data, name: t.name, email: t.email, phone: t.phone, channel: t.channel } };
}

/**
 * PROFILE-09: a contact found from one of its tickets. An e-mail or phone the caller sends must be the
 * ticket's own (which one depends on the channel, PROFILE-10).
 */
export async function contactOfTicket(
  db: DB,
  viewer: Viewer,
  q: { id: number; email?: string; phone?: string },
): Promise<Subject> {
  const t = await db
    .selectFrom('tickets')
    .select(['ticket_number', 'channel', 'name', 'email', 'phone', 'contact_id'])
    .where('account_id', '=', viewer.accountId)
    .where('id', '=', q.id)
    .where('channel', 'not in', [...INTERNAL])
    .executeTakeFirst();
  if (!t) throw noSuchPerson();
  if (q.email && q.email.toLowerCase() !== t.email.trim().toLowerCase()) throw noSuchPerson();
  if (q.phone && q.phone !== t.phone.trim()) throw noSuchPerson();
  const field = contactField(t.channel, { email: t.email.trim(), phone: t.phone.trim() });
  const uid = contactUid(field, field === 'email' ? t.email : t.phone, Number(t.ticket_number));
  const parsed = parseContactUid(uid)!;
  return {
    kind: 'contact',
    field: parsed.field,
    value: parsed.value,
    data: {
      kind: 'contact',
      name: t.name,
      uid,
      username: uid,
      type: 'contact',
      photo: '',
      email: t.email,
      phone: t.phone,
      status: '',
      channel: t.channel,
      contact_id: t.contact_id === null ? null : Number(t.contact_id),
    },
  };
}

/** PROFILE-07, PROFILE-08: one page (10) of the subject's tickets or live chats, newest update first. */
export async function listOfSubject(
  db: DB,
  viewer: Viewer,
  s: Subject,
  type: 'ticket' | 'livechat',
  offset: number,
): Promise<ProfileListItem[]> {
  const kind = TICKET_LIST_TYPES[type];
  const rows = await db
    .selectFrom('tickets')
    .leftJoin('ticket_reads as r', (j) =>
      j
        .onRef('r.ticket_id', '=', 'tickets.id')
        .on('r.account_id', '=', viewer.accountId)
        .on('r.user_id', '=', viewer.userId),
    )
    .select([
      'tickets.id',
      'tickets.ticket_number',
      'tickets.title',
      'tickets.channel',
      'tickets.label',
      'tickets.updated_at',
      'tickets.name',
      'r.read_at',
    ])
    .where((eb) => {
      const all: Expression<SqlBool>[] = [ofSubject(eb, viewer.accountId, s)];
      if (kind.only) all.push(eb('tickets.channel', 'in', [...kind.only]));
      if (kind.excluded.length) all.push(eb('tickets.channel', 'not in', [...kind.excluded]));
      return eb.and(all);
    })
    .orderBy('tickets.updated_at', 'desc')
    .orderBy('tickets.id', 'desc')
    .limit(PROFILE_LIST_PAGE)
    .offset(offset)
    .execute();
  return rows.map((r) => ({
    id: Number(r.id),
    ticket_number: Number(r.ticket_number),
    title: r.title,
    channel: r.channel,
    label: labels(r.label),
    ts: Math.floor(Number(r.updated_at) / 1000),
    read: r.read_at !== null,
    name: r.name,
  }));
}

function labels(raw: string): number[] {
  try {
    const v: unknown = JSON.parse(raw);
    return Array.isArray(v) ? v.filter((x): x is number => typeof x === 'number') : [];
  } catch {
    return [];
  }
}

/** Messages the subject wrote: a user's own, or the customer's ('visitor') on the contact's tickets. */
function messagesOf(db: DB, viewer: Viewer, s: Subject) {
  return db
    .selectFrom('messages')
    .innerJoin('tickets', (j) =>
      j.onRef('tickets.id', '=', 'messages.ticket_id').on('tickets.account_id', '=', viewer.accountId),
    )
    .where('messages.account_id', '=', viewer.accountId)
    .where('messages.deleted_at', 'is', null)
    .where('messages.type', '!=', 'system')
    .where((eb) =>
      s.kind === 'user'
        ? eb.and([eb('messages.sender', '=', s.username), eb('tickets.channel', 'not in', [...INTERNAL])])
        : eb.and([eb('messages.sender', '=', 'visitor'), ofSubject(eb, viewer.accountId, s)]),
    );
}

/** PROFILE-01, PROFILE-10: one page (5) of the subject's activity: its latest messages, newest first. */
export async function activityOf(db: DB, viewer: Viewer, s: Subject, offset: number): Promise<ActivityItem[]> {
  const rows = await messagesOf(db, viewer, s)
    .select([
      'messages.id',
      'messages.ticket_id',
      'messages.type',
      'messages.message',
      'messages.created_at',
      'tickets.ticket_number',
      'tickets.title',
      'tickets.channel',
    ])
    .orderBy('messages.id', 'desc')
    .limit(PROFILE_ACTIVITY_PAGE)
    .offset(offset)
    .execute();
  return rows.map((r) => ({
    id: Number(r.id),
    ticket_id: Number(r.ticket_id),
    ticket_number: Number(r.ticket_number),
    title: r.title,
    channel: r.channel,
    type: r.type,
    // HTML e-mail bodies become plain text here; the modal never renders markup from this field.
    text: (r.type === 'text/html' ? r.message.replace(/<[^>]*>/g, ' ') : r.message)
      .replace(/\s+/g, ' ')
      .trim()
      .slice(0, 140),
    ts: Math.floor(Number(r.created_at) / 1000),
  }));
}

/** PROFILE-03, PROFILE-10: exp and its level (see `expLevel` in the contracts for the rule). */
export async function experienceOf(db: DB, viewer: Viewer, s: Subject): Promise<{ exp: number; expLevel: number }> {
  const [done, written] = await Promise.all([
    db
      .selectFrom('tickets')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where((eb) => eb.and([ofSubject(eb, viewer.accountId, s), eb('tickets.closed', 'in', DONE_TICKET_STATUSES)]))
      .executeTakeFirstOrThrow(),
    messagesOf(db, viewer, s)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  const exp = 10 * Number(done.n) + Number(written.n);
  return { exp, expLevel: expLevel(exp) };
}

/** PROFILE-14: the account's active users with their user info and status. */
export async function listAgents(db: DB, accountId: number, keyword = '') {
  // SEARCH-11: a keyword keeps the agents whose name or username holds it (any case; LIKE's own characters
  // are taken as written).
  const pattern = `%${likeEscape(keyword.toLowerCase())}%`;
  const rows = await db
    .selectFrom('users')
    .select(['id', 'name', 'username', 'status', 'second_status', 'photo'])
    .where('account_id', '=', accountId)
    .where('active', '=', 1)
    .$if(keyword !== '', (q) =>
      q.where(
        (eb) =>
          sql<SqlBool>`(lower(${eb.ref('name')}) like ${pattern} escape '!' or lower(${eb.ref('username')}) like ${pattern} escape '!')`,
      ),
    )
    .orderBy('name')
    .orderBy('id')
    .execute();
  return rows.map((u) => ({
    id: Number(u.id),
    name: u.name,
    username: u.username,
    photo: u.photo ?? '',
    status: u.second_status || u.status,
  }));
}

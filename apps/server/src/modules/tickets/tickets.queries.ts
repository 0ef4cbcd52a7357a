import {
  APPOINTMENT_KEY,
  assigneeList,
  ErrorCode,
  openCodes,
  TICKET_LIST_TYPES,
  TICKET_STATUS,
  TICKET_STRINGS,
  type TicketListItem,
  type TicketListType,
  type TicketLoadAnswer,
  type TicketLoadQuery,
  WORKSPACE_CHANNEL,
} from '@parley/contracts';
import { type Expression, type ExpressionBuilder, type RawBuilder, type SqlBool, sql } from 'kysely';
import { type DB, likeEscape, onPostgres } from '../../platform/db/db.js';
import type { Database } from '../../platform/db/schema.js';
import { AppError, notFound } from '../../platform/http/errors.js';
import type { Trx } from '../../platform/outbox/index.js';
import {
  channelsWithAliases,
  countableByCounters,
  countFromCounters,
  labelCondition,
  labelPage,
} from './ticketCounts.js';
import { ticketFilterConditions } from './ticketFilters.js';
import { customStatusExists, listTicketStatuses } from './ticketStatuses.js';

type Db = DB | Trx;
type Eb = ExpressionBuilder<Database, 'tickets'>;

/** Who is asking: every list is scoped to the account, and read state is the user's own. */
export interface Viewer {
  accountId: number;
  userId: number;
}

/** One page of a list: the status code (4 = all), the list type, rows to skip and take, the filters. */
export interface TicketPage {
  status: number;
  type: TicketListType;
  offset: number;
  limit: number;
  query: TicketLoadQuery;
}

const ITEM_COLUMNS = [
  'tickets.id',
  'tickets.ticket_number',
  'tickets.title',
  'tickets.channel',
  'tickets.closed',
  'tickets.priority',
  'tickets.case_type',
  'tickets.label',
  'tickets.assignee',
  'tickets.department_id',
  'tickets.campaign_id',
  'tickets.created_at',
  'tickets.updated_at',
  'tickets.has_responded',
  'tickets.last_message_at',
  'tickets.name',
  'tickets.email',
  'tickets.phone',
  'tickets.other',
  'tickets.encryption_method',
  'tickets.attachment',
  'tickets.ref',
  'tickets.receiver_email',
  'tickets.emotion',
  'tickets.emotion_2',
  'tickets.call_direction',
  'tickets.did',
] as const;

export interface ItemRow {
  id: number;
  ticket_number: number;
  title: string;
  channel: string;
  closed: number;
  priority: string;
  case_type: string;
  label: string;
  assignee: string;
  department_id: number | null;
  campaign_id: number | null;
  created_at: number;
  updated_at: number;
  has_responded: number;
  last_message_at: number;
  name: string;
  email: string;
  phone: string;
  other: string;
  encryption_method: string;
  attachment: number;
  ref: string;
  receiver_email: string;
  emotion: string;
  emotion_2: string;
  call_direction: string;
  did: string;
  read_at: number | null;
}

function parseJson<T>(raw: string, ok: (v: unknown) => v is T, fallback: T): T {
  try {
    const v: unknown = JSON.parse(raw);
    return ok(v) ? v : fallback;
  } catch {
    return fallback;
  }
}
const isNumbers = (v: unknown): v is number[] => Array.isArray(v) && v.every((x) => typeof x === 'number');
const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const severity = (p: string): TicketListItem['severity'] => (p === 'H' || p === 'M' || p === 'L' ? p : '');
const isCounts = (v: unknown): v is Record<string, number> =>
  isObject(v) && Object.values(v).every((n) => typeof n === 'number');
/** A ticket's `emotion_2` column: emotion -> count; {} when it holds anything else. */
export const parseEmotionCounts = (raw: string): Record<string, number> => parseJson(raw, isCounts, {});
const direction = (d: string): TicketListItem['call_direction'] => (d === 'inbound' || d === 'outbound' ? d : '');

export function toListItem(r: ItemRow): TicketListItem {
  const updated = Number(r.updated_at);
  const readAt = r.read_at === null ? null : Number(r.read_at);
  return {
    id: Number(r.id),
    ticket_number: Number(r.ticket_number),
    title: r.title,
    channel: r.channel,
    closed: Number(r.closed),
    read: readAt !== null,
    severity: severity(r.priority),
    case_type: r.case_type,
    label: parseJson(r.label, isNumbers, []),
    // TICKET-21: comma-separated usernames, tidied (no spaces or empty entries).
    assignee: assigneeList(r.assignee).join(','),
    department_id: r.department_id === null ? null : Number(r.department_id),
    campaign_id: r.campaign_id === null ? null : Number(r.campaign_id),
    created_at: Number(r.created_at),
    updated_at: updated,
    ts: Math.floor(updated / 1000),
    hasResponded: Number(r.has_responded) === 1,
    last_message_at: Number(r.last_message_at),
    newMessage: Number(r.last_message_at) > (readAt ?? 0),
    name: r.name,
    email: r.email,
    phone: r.phone,
    other: parseJson(r.other, isObject, {}),
    encryption: r.encryption_method !== '',
    attachment: Number(r.attachment) === 1,
    ref: r.ref,
    receiver_email: r.receiver_email,
    emotion: r.emotion,
    emotion_2: parseEmotionCounts(r.emotion_2),
    call_direction: direction(r.call_direction),
    did: r.did,
  };
}

/** LIKE patterns escape with '!', which reads the same in both dialects. */
const like = (e: Expression<unknown>, pattern: string) => sql<SqlBool>`${e} like ${pattern} escape '!'`;

/**
 * TICKET-62: the appointment date of a ticket as text (null when none), from `other`. Both dialects read a
 * JSON key with `->>`; Postgres needs the text column cast first.
 */
function appointmentText(db: Db): RawBuilder<string | null> {
  return onPostgres(db)
    ? sql`(tickets.other::jsonb ->> ${APPOINTMENT_KEY})`
    : sql`(tickets.other ->> ${APPOINTMENT_KEY})`;
}
const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The appointment filters (see `TicketLoadQuery`): on the day part of a YYYY-MM-DD... date. */
function appointmentConditions(q: TicketLoadQuery, appt: RawBuilder<string | null>, now: number) {
  const out: Expression<SqlBool>[] = [];
  const wanted = q.apptStart !== undefined || q.apptEnd !== undefined || q.apptLessTwoDays === '1' || q.appt === '1';
  const day = sql`substr(${appt}, 1, 10)`;
  if (wanted) out.push(sql<SqlBool>`${appt} like '____-__-__%'`);
  else if (q.appt === '0') out.push(sql<SqlBool>`(${appt} is null or ${appt} not like '____-__-__%')`);
  if (q.apptStart !== undefined) out.push(sql<SqlBool>`${day} >= ${utcDay(q.apptStart * 1000)}`);
  if (q.apptEnd !== undefined) out.push(sql<SqlBool>`${day} <= ${utcDay(q.apptEnd * 1000)}`);
  if (q.apptLessTwoDays === '1') out.push(sql<SqlBool>`${day} < ${utcDay(now + 2 * 86_400_000)}`);
  return out;
}

/**
 * CHAT-06: a Workspace chat (channel `chat`) is listed and shown only to its members; every other ticket
 * to anyone of the account.
 */
export function visibleTo(eb: Eb, viewer: Viewer): Expression<SqlBool> {
  // User id 0 is the server's own view (the item an event carries to every member).
  if (viewer.userId === 0) return eb.lit(true);
  return eb.or([
    eb('tickets.channel', '!=', WORKSPACE_CHANNEL),
    eb.exists(
      eb
        .selectFrom('chat_members')
        .select('chat_members.ticket_id')
        .where('chat_members.account_id', '=', viewer.accountId)
        .whereRef('chat_members.ticket_id', '=', 'tickets.id')
        .where('chat_members.user_id', '=', viewer.userId),
    ),
  ]);
}

/** Every condition of a page as one expression; ids in the filters are already checked (`checkFilterIds`). */
function conditions(
  eb: Eb,
  viewer: Viewer,
  p: Omit<TicketPage, 'offset' | 'limit'>,
  codes: number[] | null,
  appt: RawBuilder<string | null>,
): Expression<SqlBool> {
  const q = p.query;
  const accountId = viewer.accountId;
  const all: Expression<SqlBool>[] = [eb('tickets.account_id', '=', accountId), visibleTo(eb, viewer)];
  if (codes !== null)
    all.push(codes.length === 1 ? eb('tickets.closed', '=', codes[0]!) : eb('tickets.closed', 'in', codes));
  const kind = TICKET_LIST_TYPES[p.type];
  if (kind.only) all.push(eb('tickets.channel', 'in', [...kind.only]));
  if (kind.excluded.length) all.push(eb('tickets.channel', 'not in', [...kind.excluded]));
  if (q.campaignId !== undefined) all.push(eb('tickets.campaign_id', '=', q.campaignId));
  if (q.agent) all.push(like(sql`(',' || tickets.assignee || ',')`, `%,${likeEscape(q.agent)},%`));
  // The Unassigned view: `assignee` is '' when nobody is assigned (written tidied by every change).
  if (q.assigned !== undefined) all.push(eb('tickets.assignee', q.assigned === '1' ? '!=' : '=', ''));
  const time = q.received === 'created' ? 'tickets.created_at' : 'tickets.updated_at';
  if (q.start !== undefined) all.push(eb(time, '>=', q.start * 1000));
  if (q.end !== undefined) all.push(eb(time, '<=', q.end * 1000 + 999));
  if (q.priorityFilter?.length)
    all.push(
      eb(
        'tickets.priority',
        'in',
        q.priorityFilter.map((x) => (x === 'none' ? '' : x)),
      ),
    );
  if (q.channelFilter?.length) all.push(eb('tickets.channel', 'in', channelsWithAliases(q.channelFilter)));
  // Labels are read from `ticket_labels` (migration 0016), which indexes them; `tickets.label` is their JSON.
  if (q.labelFilter?.length) all.push(labelCondition(eb, viewer, p, codes, q.labelFilter));
  if (q.depFilter?.length) all.push(eb('tickets.department_id', 'in', q.depFilter));
  if (q.withReply !== undefined) all.push(eb('tickets.has_responded', '=', Number(q.withReply)));
  all.push(...appointmentConditions(q, appt, Date.now()));
  if (q.field && q.fieldValue !== undefined && q.fieldValue !== '') {
    if (q.field === 'ticket_number') {
      const n = Number(q.fieldValue);
      all.push(Number.isSafeInteger(n) ? eb('tickets.ticket_number', '=', n) : sql<SqlBool>`1 = 0`);
    } else {
      all.push(like(sql`lower(${sql.ref(`tickets.${q.field}`)})`, `%${likeEscape(q.fieldValue.toLowerCase())}%`));
    }
  }
  return eb.and(all);
}

/**
 * The codes a status filter lists. 4 is all (null); 0 is Open and every custom status that
 * counts as open (alternate "0"); a custom code must be one the account has or had, else 400.
 */
export async function statusCodes(db: Db, accountId: number, status: number): Promise<number[] | null> {
  if (status === TICKET_STATUS.all) return null;
  if (status === TICKET_STATUS.open) return openCodes(await listTicketStatuses(db, accountId));
  if (status < TICKET_STATUS.all) return [status];
  if (!(await customStatusExists(db, accountId, status, true)))
    throw new AppError(400, ErrorCode.validation, TICKET_STRINGS.badFilter);
  return [status];
}

/**
 * TICKET-30: a label or department id in a filter must be the caller's account's (else 400, nothing shown).
 * `checked` names ids the caller has already found in the account (a load2 tab's own id).
 */
export async function checkFilterIds(
  db: Db,
  accountId: number,
  q: Pick<TicketLoadQuery, 'labelFilter' | 'depFilter'>,
  checked: { labels?: number[]; departments?: number[] } = {},
): Promise<void> {
  const check = async (
    table: 'labels' | 'departments',
    ids: number[] | undefined,
    known: number[] | undefined,
    message: string,
  ) => {
    const wanted = [...new Set(ids ?? [])].filter((id) => !known?.includes(id));
    if (wanted.length === 0) return;
    const found = await db
      .selectFrom(table)
      .select('id')
      .where('account_id', '=', accountId)
      .where('id', 'in', wanted)
      .execute();
    if (found.length !== wanted.length) throw new AppError(400, ErrorCode.validation, message);
  };
  await Promise.all([
    check('labels', q.labelFilter, checked.labels, TICKET_STRINGS.badLabel),
    check('departments', q.depFilter, checked.departments, TICKET_STRINGS.badDepartment),
  ]);
}

function selectItems(db: Db, viewer: Viewer) {
  return db
    .selectFrom('tickets')
    .leftJoin('ticket_reads', (j) =>
      j
        .onRef('ticket_reads.ticket_id', '=', 'tickets.id')
        .on('ticket_reads.user_id', '=', viewer.userId)
        .on('ticket_reads.account_id', '=', viewer.accountId),
    )
    .select([...ITEM_COLUMNS, 'ticket_reads.read_at']);
}

/** Up to this many matching rows, a page is sorted from the rows the filters find (see `loadTickets`). */
const FEW_ROWS = 5000;

/**
 * TICKET-30, TICKET-33, TICKET-38: one page of a list and the number of rows matching in all. Statements that
 * do not need each other's answers go together (on Postgres each takes a pool connection; a page costs the
 * slowest of them, not their sum). `checked`: filter ids the caller already found in the account.
 */
export async function loadTickets(
  db: Db,
  viewer: Viewer,
  page: TicketPage,
  seen: OpenCodesSeen,
  checked: { labels?: number[]; departments?: number[] } = {},
): Promise<TicketLoadAnswer> {
  // The status codes a filter lists depend on the account's custom statuses (a read). The page is read at the
  // same time with the codes the account had last time (Open alone at first), and again only when they
  // differ: a list costs one round of statements, not two.
  const guess =
    page.status === TICKET_STATUS.all
      ? null
      : page.status === TICKET_STATUS.open
        ? (seen.get(viewer.accountId) ?? [TICKET_STATUS.open])
        : [page.status];
  const [, codes, first] = await Promise.all([
    checkFilterIds(db, viewer.accountId, page.query, checked),
    statusCodes(db, viewer.accountId, page.status),
    pageWithCodes(db, viewer, page, guess),
  ]);
  if (page.status === TICKET_STATUS.open && codes) seen.remember(viewer.accountId, codes);
  return sameCodes(codes, guess) ? first : pageWithCodes(db, viewer, page, codes);
}

/**
 * The open codes of each account as last read (a hint for the next list: `loadTickets` checks it every time).
 * One per server instance (its ticket routes own it), never shared by two in one process.
 */
export class OpenCodesSeen {
  private readonly byAccount = new Map<number, number[]>();

  get(accountId: number): number[] | undefined {
    return this.byAccount.get(accountId);
  }

  remember(accountId: number, codes: number[]): void {
    if (this.byAccount.size >= 10_000) this.byAccount.clear();
    this.byAccount.set(accountId, codes);
  }
}
const sameCodes = (a: number[] | null, b: number[] | null) =>
  a === null || b === null ? a === b : a.length === b.length && a.every((c, k) => c === b[k]);

/** One page and its count once the status codes are known (ids in the filters already checked or checking). */
async function pageWithCodes(
  db: Db,
  viewer: Viewer,
  page: TicketPage,
  codes: number[] | null,
): Promise<TicketLoadAnswer> {
  const appt = appointmentText(db);
  const more = ticketFilterConditions(db, viewer.accountId, page.query);
  const where = (eb: Eb) => eb.and([conditions(eb, viewer, page, codes, appt), ...more(eb)]);
  // A label page held entirely by `ticket_labels` is counted and paged from its index (migration 0016).
  const labelled = await labelPage(db, viewer, page, codes);
  if (labelled) {
    // The ids already meet every condition of the page (`ticket_labels` carries the columns they test, kept by
    // the triggers in the writing transaction): the tickets are read by id alone, a plan of a tenth of the time.
    const found = labelled.ids.length
      ? await selectItems(db, viewer)
          .where('tickets.account_id', '=', viewer.accountId)
          .where('tickets.id', 'in', labelled.ids)
          .execute()
      : [];
    const at = new Map(labelled.ids.map((id, k) => [id, k]));
    found.sort((x, y) => at.get(Number(x.id))! - at.get(Number(y.id))!);
    return { data: found.map((r) => toListItem(r as ItemRow)), count: labelled.count };
  }
  // Status, list type, channel and department alone are answered by the counters (migration 0016), and such
  // a page is read the same way whatever the count: the count and the page go together.
  if (countableByCounters(viewer, page)) {
    const [n, rows] = await Promise.all([
      countFromCounters(db, viewer, page, codes),
      pageRows(db, viewer, page, where, false),
    ]);
    return { data: rows.map((r) => toListItem(r as ItemRow)), count: n };
  }
  const counted = await db
    .selectFrom('tickets')
    .where(where)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  const rows = await pageRows(db, viewer, page, where, Number(counted.n) <= FEW_ROWS);
  return { data: rows.map((r) => toListItem(r as ItemRow)), count: Number(counted.n) };
}

/** The rows of one page in the list's order; `few`: the count is small (see below). */
function pageRows(db: Db, viewer: Viewer, page: TicketPage, where: (eb: Eb) => Expression<SqlBool>, few: boolean) {
  let q = selectItems(db, viewer).where(where);
  // When few rows match, reading them through the filters' index and sorting them is cheaper than walking
  // the time index backwards past every newer row that does not match, which both planners pick when the
  // filters are on other columns (e.g. a created-time range under the updated-time sort). The count says
  // how many match; `+ 0` keeps the sort key off its index for those pages. The order is the same. A page
  // the counters answer has only status, type, channel and department conditions, which the time indexes
  // lead with (0006): walking one of them stops after the page, so it is never sorted whole (the default
  // list of 4,937 open tickets took 8 ms read and sorted on SQLite, 0.6 ms walked).
  const time = (col: 'tickets.updated_at' | 'tickets.created_at') => (few ? sql`${sql.ref(col)} + 0` : sql.ref(col));
  // TICKET-11, TICKET-12, TICKET-13: the sort, then newest id so pages never overlap.
  if (page.query.sort === 'priority')
    q = q
      .orderBy(sql`case tickets.priority when 'H' then 0 when '' then 1 when 'M' then 2 when 'L' then 3 else 4 end`)
      .orderBy(time('tickets.updated_at'), 'desc');
  else if (page.query.sort === 'created') q = q.orderBy(time('tickets.created_at'), 'desc');
  else q = q.orderBy(time('tickets.updated_at'), 'desc');
  return q.orderBy('tickets.id', 'desc').limit(page.limit).offset(page.offset).execute();
}

export async function itemRow(db: Db, viewer: Viewer, id: number): Promise<ItemRow> {
  const row = await selectItems(db, viewer)
    .where('tickets.account_id', '=', viewer.accountId)
    .where('tickets.id', '=', id)
    .where((eb) => visibleTo(eb, viewer))
    .executeTakeFirst();
  if (!row) throw notFound(TICKET_STRINGS.notFound);
  return row as ItemRow;
}

/** One ticket of the caller's account as the caller sees it in a list; 404 for any other id. */
export async function ticketItem(db: Db, viewer: Viewer, id: number): Promise<TicketListItem> {
  return toListItem(await itemRow(db, viewer, id));
}

/**
 * Moves a ticket's activity columns inside the caller's transaction and answers the ticket's list item as
 * the account sees it (no reader's read state), from the updated row itself (`returning`): one statement
 * instead of an update and a read, so the row lock Postgres takes here is held only from this statement to
 * the commit. Undefined when the ticket is not the account's.
 */
export async function touchTicketItem(
  trx: Db,
  accountId: number,
  id: number,
  set: {
    updated_at: number;
    last_message_at?: number;
    has_responded?: number;
    closed?: number;
    /** A call's recording was read (calls' `endCall`). */
    emotion?: string;
    emotion_2?: string;
  },
): Promise<Omit<TicketListItem, 'read' | 'newMessage'> | undefined> {
  const row = await trx
    .updateTable('tickets')
    .set(set)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returning(ITEM_COLUMNS)
    .executeTakeFirst();
  if (!row) return undefined;
  const { read: _r, newMessage: _n, ...item } = toListItem({ ...(row as Omit<ItemRow, 'read_at'>), read_at: null });
  return item;
}

/** TICKET-33: the department or label a load2 tab names must be the caller's account's. */
export async function assertOwned(db: Db, accountId: number, table: 'departments' | 'labels', id: number) {
  const found = await db
    .selectFrom(table)
    .select('id')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!found)
    throw notFound(table === 'departments' ? TICKET_STRINGS.departmentNotFound : TICKET_STRINGS.labelNotFound);
}

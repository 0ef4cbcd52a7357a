import { assigneeList, isDone, type NewMessageEvent, SENDERS, WORKSPACE_CHANNEL } from '@parley/contracts';
import type { DB } from '../../platform/db/db.js';
import type { Listener, StoredEvent, Trx } from '../../platform/outbox/index.js';
import { isAgentAnswer } from '../messages/index.js';
import { SLA_BREACHED } from '../sla/index.js';
import { TICKET_RATED, type TicketRated } from '../tickets/index.js';
import { applyRollup, rollupChange } from './rollups.js';

interface TicketNow {
  id: number;
  channel: string;
  department_id: number | null;
  assignee: string;
  closed: number;
  created_at: number;
  updated_at: number;
}

type Facts = {
  channel: string;
  department_id: number | null;
  assignee: string;
  closed: number;
  first_customer_at: number | null;
  first_response_at: number | null;
  first_response_ms: number | null;
  resolved_at: number | null;
  resolution_ms: number | null;
  reopen_count: number;
  sla_breached: number;
  csat: number | null;
};

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const firstAssignee = (assignee: string) => assigneeList(assignee)[0] ?? '';

async function ticketNow(trx: Trx | DB, accountId: number, id: number): Promise<TicketNow | null> {
  const t = await trx
    .selectFrom('tickets')
    .select(['id', 'channel', 'department_id', 'assignee', 'closed', 'created_at', 'updated_at'])
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!t || t.channel === WORKSPACE_CHANNEL) return null;
  return {
    id: Number(t.id),
    channel: t.channel,
    department_id: num(t.department_id),
    assignee: t.assignee,
    closed: Number(t.closed),
    created_at: Number(t.created_at),
    updated_at: Number(t.updated_at),
  };
}

/**
 * A conversation's facts worked out from what is stored, for a ticket the listener meets for the first time
 * (made before the facts existed, or by a path that appends no ticket event) and for the backfill. The first
 * customer message is the first one from someone who is not a user of the account nor the server; the first
 * answer the first message after it from a user of the account (not a system line). A resolved ticket counts
 * as resolved when it was last changed; reopens before the facts existed are not known (0).
 */
async function factsFromHistory(trx: Trx | DB, accountId: number, t: TicketNow): Promise<Facts> {
  const users = trx.selectFrom('users').select('username').where('account_id', '=', accountId);
  const firstCustomer = await trx
    .selectFrom('messages')
    .select('created_at')
    .where('account_id', '=', accountId)
    .where('ticket_id', '=', t.id)
    .where('deleted_at', 'is', null)
    .where('type', '!=', 'system')
    .where('sender', 'not in', [SENDERS.server, SENDERS.translatebot])
    .where('sender', 'not in', users)
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  const customerAt = num(firstCustomer?.created_at);
  const answer =
    customerAt === null
      ? undefined
      : await trx
          .selectFrom('messages')
          .select('created_at')
          .where('account_id', '=', accountId)
          .where('ticket_id', '=', t.id)
          .where('deleted_at', 'is', null)
          .where('type', '!=', 'system')
          .where('created_at', '>=', customerAt)
          .where('sender', 'in', users)
          .orderBy('id')
          .limit(1)
          .executeTakeFirst();
  const answerAt = num(answer?.created_at);
  const breach = await trx
    .selectFrom('sla_breaches')
    .select('id')
    .where('account_id', '=', accountId)
    .where('ticket_id', '=', t.id)
    .limit(1)
    .executeTakeFirst();
  const resolvedAt = isDone(t.closed) ? t.updated_at : null;
  return {
    channel: t.channel,
    department_id: t.department_id,
    assignee: firstAssignee(t.assignee),
    closed: t.closed,
    first_customer_at: customerAt,
    first_response_at: answerAt,
    first_response_ms: answerAt !== null && customerAt !== null ? answerAt - customerAt : null,
    resolved_at: resolvedAt,
    resolution_ms: resolvedAt === null ? null : Math.max(0, resolvedAt - t.created_at),
    reopen_count: 0,
    sla_breached: breach ? 1 : 0,
    csat: await ratingOf(trx, accountId, t.id),
  };
}

/** The customer's latest rating of a conversation: its survey's, else its live chat's. */
async function ratingOf(trx: Trx | DB, accountId: number, ticketId: number): Promise<number | null> {
  const survey = await trx
    .selectFrom('ticket_surveys')
    .select('rating')
    .where('account_id', '=', accountId)
    .where('ticket_id', '=', ticketId)
    .where('rating', 'is not', null)
    .orderBy('answered_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (survey) return Number(survey.rating);
  const chat = await trx
    .selectFrom('livechats')
    .select('rating')
    .where('account_id', '=', accountId)
    .where('ticket_id', '=', ticketId)
    .where('rating', 'is not', null)
    .limit(1)
    .executeTakeFirst();
  return chat ? Number(chat.rating) : null;
}

/** Writes a conversation's first facts and adds them to the rollups (nothing when another writer was first). */
async function insertFacts(trx: Trx | DB, accountId: number, t: TicketNow, f: Facts, now: number): Promise<void> {
  const inserted = await trx
    .insertInto('report_ticket_facts')
    .values({ ticket_id: t.id, account_id: accountId, created_at: t.created_at, updated_at: now, ...f })
    .onConflict((oc) => oc.column('ticket_id').doNothing())
    .returning('ticket_id')
    .executeTakeFirst();
  if (inserted) await applyRollup(trx, accountId, rollupChange(null, { ...f, created_at: t.created_at }));
}

/** What an event changes of facts already kept; null when nothing. */
function applyEvent(e: StoredEvent, row: Facts & { created_at: number }): Partial<Facts> | null {
  if (e.type === 'ticket.created' || e.type === 'ticket.updated') {
    const p = e.payload as { closed: number; channel: string; department_id: number | null; assignee: string };
    const set: Partial<Facts> = {
      channel: p.channel,
      department_id: p.department_id,
      assignee: firstAssignee(p.assignee),
      closed: p.closed,
    };
    if (isDone(row.closed) && !isDone(p.closed)) {
      set.reopen_count = row.reopen_count + 1;
      set.resolved_at = null;
      set.resolution_ms = null;
    } else if (!isDone(row.closed) && isDone(p.closed)) {
      set.resolved_at = e.createdAt;
      set.resolution_ms = Math.max(0, e.createdAt - row.created_at);
    }
    return set;
  }
  if (e.type === 'message.created') {
    const m = e.payload as NewMessageEvent;
    if (m.fromCustomer) return row.first_customer_at === null ? { first_customer_at: m.created_at } : null;
    if (row.first_customer_at === null || row.first_response_at !== null) return null;
    return { first_response_at: m.created_at, first_response_ms: Math.max(0, m.created_at - row.first_customer_at) };
  }
  if (e.type === SLA_BREACHED) return row.sla_breached ? null : { sla_breached: 1 };
  if (e.type === TICKET_RATED) return { csat: (e.payload as TicketRated).rating };
  return null;
}

const ticketIdOf = (e: StoredEvent): number =>
  Number(
    e.type === 'message.created' ? (e.payload as { ticketId: unknown }).ticketId : (e.payload as { id: unknown }).id,
  );

/**
 * Keeps `report_ticket_facts` as events happen, in the relay's batch transaction (exactly once per event, in
 * order, so a resolve followed by a reopen counts). A ticket met for the first time gets its facts from what
 * is stored; after that each event moves them on. The rollups (rollups.ts) move with them in the same transaction.
 */
export const reportFactsListener: Listener = {
  name: 'reports.facts',
  kind: 'transactional',
  events: ['ticket.created', 'ticket.updated', 'message.created', SLA_BREACHED, TICKET_RATED],
  wants: (e) => {
    if (e.type === 'message.created') {
      const m = e.payload as NewMessageEvent;
      return m.fromCustomer === true || isAgentAnswer({ ...m, fromCustomer: false });
    }
    if (e.type === 'ticket.created' || e.type === 'ticket.updated')
      return (e.payload as { channel?: unknown }).channel !== WORKSPACE_CHANNEL;
    return true;
  },
  async handle(e: StoredEvent, trx: Trx) {
    const id = ticketIdOf(e);
    if (!Number.isInteger(id)) return;
    const row = await trx
      .selectFrom('report_ticket_facts')
      .selectAll()
      .where('account_id', '=', e.accountId)
      .where('ticket_id', '=', id)
      .executeTakeFirst();
    if (!row) {
      const t = await ticketNow(trx, e.accountId, id);
      if (t) await insertFacts(trx, e.accountId, t, await factsFromHistory(trx, e.accountId, t), e.createdAt);
      return;
    }
    const facts = {
      channel: row.channel,
      department_id: num(row.department_id),
      assignee: row.assignee,
      closed: Number(row.closed),
      first_customer_at: num(row.first_customer_at),
      first_response_at: num(row.first_response_at),
      first_response_ms: num(row.first_response_ms),
      resolved_at: num(row.resolved_at),
      resolution_ms: num(row.resolution_ms),
      reopen_count: Number(row.reopen_count),
      sla_breached: Number(row.sla_breached),
      csat: num(row.csat),
      created_at: Number(row.created_at),
    };
    const set = applyEvent(e, facts);
    if (!set) return;
    await trx
      .updateTable('report_ticket_facts')
      .set({ ...set, updated_at: e.createdAt })
      .where('account_id', '=', e.accountId)
      .where('ticket_id', '=', id)
      .execute();
    await applyRollup(trx, e.accountId, rollupChange(facts, { ...facts, ...set }));
  },
};

/**
 * Builds the facts of every conversation that has none yet (tickets made before the facts were kept), from
 * what is stored; one account or all. Safe to run while the server runs and to run again. Returns how many
 * rows it wrote.
 */
export async function backfillTicketFacts(db: DB, opts: { accountId?: number; now?: number } = {}): Promise<number> {
  let written = 0;
  let after = 0;
  for (;;) {
    let q = db
      .selectFrom('tickets')
      .leftJoin('report_ticket_facts as f', 'f.ticket_id', 'tickets.id')
      .select(['tickets.id', 'tickets.account_id'])
      .where('f.ticket_id', 'is', null)
      .where('tickets.channel', '!=', WORKSPACE_CHANNEL)
      .where('tickets.id', '>', after)
      .orderBy('tickets.id')
      .limit(500);
    if (opts.accountId !== undefined) q = q.where('tickets.account_id', '=', opts.accountId);
    const page = await q.execute();
    if (page.length === 0) return written;
    // Read first, then write the page in a transaction that starts with its first insert: on SQLite a
    // transaction that read before writing fails at once (not after the busy wait) when the running server
    // wrote in between.
    const rows: { accountId: number; t: TicketNow; f: Facts }[] = [];
    for (const r of page) {
      const accountId = Number(r.account_id);
      const t = await ticketNow(db, accountId, Number(r.id));
      if (t) rows.push({ accountId, t, f: await factsFromHistory(db, accountId, t) });
    }
    await db.transaction().execute(async (trx) => {
      for (const { accountId, t, f } of rows) await insertFacts(trx, accountId, t, f, opts.now ?? Date.now());
    });
    written += rows.length;
    after = Number(page[page.length - 1]!.id);
  }
}

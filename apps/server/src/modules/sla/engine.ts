import type pino from 'pino';
import type { DB } from '../../platform/db/db.js';
import { type Listener, runCommand, type StoredEvent, type Trx } from '../../platform/outbox/index.js';
import type { Task } from '../../platform/scheduler.js';
import { type AlertTicket, sendSlaAlert, takeAlert } from './alerts.js';
import { dueTimers, syncSlaTimer, ticketsWithMessagesAfter } from './timers.js';

const WATERMARK = 'sla.watermark';
/** The scan looks this far behind its watermark: a message committed late (a long transaction) is still seen. */
const OVERLAP_MS = 120_000;
const PAGE = 500;

export interface SlaEngineOptions {
  db: DB;
  log: pino.Logger;
  /** The clock (tests inject one). */
  now?: () => number;
  /** How often the check runs (default 10 s). */
  everyMs?: number;
}

export interface CheckResult {
  synced: number;
  warnings: number;
  violations: number;
}

/**
 * Issue 8, the SLA engine. Timers are rows (`sla_timers`, one per ticket: its current wait); the check is a
 * Scheduler task, so one node runs it per period, and every alert is taken with a conditional update on the
 * row in the alert's own transaction, so even two checks running at once alert exactly once.
 *
 * Waits are found two ways, both idempotent: the `ticket.updated` listener (every stored message appends one in
 * its transaction, as do label and status changes), and the check's scan of `tickets.last_message_at` past a
 * watermark (a safety net: a wait is still found, up to one check period late, if an event were ever missed).
 */
export class SlaEngine {
  readonly now: () => number;
  constructor(private readonly o: SlaEngineOptions) {
    this.now = o.now ?? Date.now;
  }

  task(): Task {
    return { name: 'slaCheck', everyMs: this.o.everyMs ?? 10_000, run: async () => void (await this.check()) };
  }

  /** One run: find new waits, then raise the warnings and violations that are due. */
  async check(): Promise<CheckResult> {
    const synced = await this.scan();
    let warnings = 0;
    let violations = 0;
    for (;;) {
      const now = this.now();
      const due = await dueTimers(this.o.db, now, PAGE);
      for (const d of due) {
        const r = await this.fire(Number(d.account_id), Number(d.ticket_id), now);
        warnings += r.warning ? 1 : 0;
        violations += r.violation ? 1 : 0;
      }
      if (due.length < PAGE) break;
    }
    return { synced, warnings, violations };
  }

  /** Syncs the timers of tickets whose last customer message is past the watermark. */
  private async scan(): Promise<number> {
    const { db } = this.o;
    const row = await db.selectFrom('server_state').select('value').where('name', '=', WATERMARK).executeTakeFirst();
    const mark = row ? Number(row.value) || 0 : 0;
    let after = { at: Math.max(0, mark - OVERLAP_MS), id: 0 };
    let highest = mark;
    let n = 0;
    for (;;) {
      const page = await ticketsWithMessagesAfter(db, after, PAGE);
      for (const t of page) {
        await runCommand(db, (trx) => syncSlaTimer(trx, Number(t.account_id), Number(t.id), this.now()));
        highest = Math.max(highest, Number(t.last_message_at));
      }
      n += page.length;
      const last = page.at(-1);
      if (!last || page.length < PAGE) break;
      after = { at: Number(last.last_message_at), id: Number(last.id) };
    }
    if (highest !== mark) {
      const v = { value: String(highest), created_at: this.now() };
      await db
        .insertInto('server_state')
        .values({ name: WATERMARK, ...v })
        .onConflict((oc) => oc.column('name').doUpdateSet(v))
        .execute();
    }
    return n;
  }

  /**
   * Re-syncs the ticket (a reply may have come), then takes what is due with a conditional update: the warning
   * at 80 %, the violation at 100 % (with its reporting fact). A violation found before its warning went out
   * (the server was down through the warning time) is sent alone.
   */
  async fire(accountId: number, ticketId: number, now: number): Promise<{ warning: boolean; violation: boolean }> {
    return runCommand(this.o.db, async (trx) => {
      await syncSlaTimer(trx, accountId, ticketId, now);
      const t = await trx
        .selectFrom('sla_timers as s')
        .innerJoin('tickets as t', 't.id', 's.ticket_id')
        .select([
          's.started_at',
          's.warn_at',
          's.due_at',
          's.warned_at',
          's.violated_at',
          's.next_at',
          's.sla_minutes',
          's.label_id',
          't.ticket_number',
          't.title',
          't.channel',
          't.assignee',
          't.department_id',
        ])
        .where('s.account_id', '=', accountId)
        .where('s.ticket_id', '=', ticketId)
        .executeTakeFirst();
      const out = { warning: false, violation: false };
      if (!t || t.next_at === null || Number(t.next_at) > now) return out;
      const ticket: AlertTicket = {
        id: ticketId,
        accountId,
        ticketNumber: Number(t.ticket_number),
        title: t.title,
        channel: t.channel,
        assignee: t.assignee,
        departmentId: t.department_id === null ? null : Number(t.department_id),
      };
      const startedAt = Number(t.started_at);
      const wait = { startedAt, sla: Number(t.sla_minutes) };
      const take = (col: 'warned_at' | 'violated_at') =>
        trx
          .updateTable('sla_timers')
          .set({ [col]: now, updated_at: now })
          .where('ticket_id', '=', ticketId)
          .where('started_at', '=', startedAt)
          .where(col, 'is', null)
          .executeTakeFirst()
          .then((r) => Number(r.numUpdatedRows) === 1);

      if (Number(t.due_at) <= now) {
        if (t.violated_at === null && (await take('violated_at'))) {
          out.violation = true;
          if (t.warned_at === null) await take('warned_at');
          const alerted = await takeAlert(trx, accountId, now);
          await this.recordBreach(trx, ticket, t, alerted, now);
          if (alerted) await sendSlaAlert(trx, ticket, 'violation', wait, now);
        }
      } else if (Number(t.warn_at) <= now && t.warned_at === null && (await take('warned_at'))) {
        out.warning = true;
        if (await takeAlert(trx, accountId, now)) await sendSlaAlert(trx, ticket, 'warning', wait, now);
      }
      const row = await trx
        .selectFrom('sla_timers')
        .select(['warn_at', 'due_at', 'warned_at', 'violated_at'])
        .where('ticket_id', '=', ticketId)
        .executeTakeFirstOrThrow();
      const next = row.violated_at !== null ? null : row.warned_at !== null ? Number(row.due_at) : Number(row.warn_at);
      await trx.updateTable('sla_timers').set({ next_at: next }).where('ticket_id', '=', ticketId).execute();
      return out;
    });
  }

  private async recordBreach(
    trx: Trx,
    ticket: AlertTicket,
    t: { started_at: number; due_at: number; sla_minutes: number; label_id: number },
    alerted: boolean,
    now: number,
  ) {
    await trx
      .insertInto('sla_breaches')
      .values({
        account_id: ticket.accountId,
        ticket_id: ticket.id,
        ticket_number: ticket.ticketNumber,
        label_id: Number(t.label_id),
        sla_minutes: Number(t.sla_minutes),
        waited_from: Number(t.started_at),
        due_at: Number(t.due_at),
        breached_at: now,
        assignee: ticket.assignee,
        department_id: ticket.departmentId,
        alerted: alerted ? 1 : 0,
      })
      .onConflict((oc) => oc.columns(['ticket_id', 'waited_from']).doNothing())
      .execute();
  }
}

/**
 * A ticket changed: a message was stored (a customer's starts or continues the wait, an agent's reply ends it),
 * or its labels or status changed (a new SLA label, a closed ticket). Its timer follows.
 */
export const slaTicketListener: Listener = {
  name: 'sla.ticketUpdated',
  kind: 'transactional',
  events: ['ticket.updated'],
  // The timer is synced from the ticket as it is now: several updates of one ticket in a batch need one sync.
  coalesce: (e) => {
    const id = Number((e.payload as { id?: unknown }).id);
    return Number.isInteger(id) ? String(id) : null;
  },
  async handle(e: StoredEvent, trx: Trx) {
    const id = Number((e.payload as { id?: unknown }).id);
    if (Number.isInteger(id)) await syncSlaTimer(trx, e.accountId, id, Date.now());
  },
};

/** An admin changed the labels (an SLA time): every running timer of the account is recomputed. */
export const slaLabelsListener: Listener = {
  name: 'sla.labelsUpdated',
  kind: 'transactional',
  events: ['labels.updated'],
  async handle(e: StoredEvent, trx: Trx) {
    const rows = await trx
      .selectFrom('sla_timers')
      .select('ticket_id')
      .where('account_id', '=', e.accountId)
      .where('next_at', 'is not', null)
      .execute();
    for (const r of rows) await syncSlaTimer(trx, e.accountId, Number(r.ticket_id), Date.now());
  },
};

import { DONE_TICKET_STATUSES, type SlaTargetName } from '@parley/contracts';
import type pino from 'pino';
import type { DB } from '../../platform/db/db.js';
import { appendEvent, type Listener, runCommand, type StoredEvent, type Trx } from '../../platform/outbox/index.js';
import type { Task } from '../../platform/scheduler.js';
import { type AlertTicket, recordBreach, SLA_WARNED, sendSlaAlert, takeAlert } from './alerts.js';
import { countedMinutes, nextCheck, numOrNull, policySchedule } from './policies.js';
import { dueResolutionTimers, dueTimers, syncSlaTimer, ticketsWithMessagesAfter } from './timers.js';

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
 * The SLA engine. Timers are rows (`sla_timers`, one per ticket: its current wait); the check is a
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

  /** One run: find new waits, then raise the warnings and violations that are due (response, then resolution). */
  async check(): Promise<CheckResult> {
    const synced = await this.scan();
    let warnings = 0;
    let violations = 0;
    const kinds = [
      [dueTimers, 'sla_timers'],
      [dueResolutionTimers, 'sla_resolution_timers'],
    ] as const;
    for (const [due, table] of kinds)
      for (;;) {
        const now = this.now();
        const page = await due(this.o.db, now, PAGE);
        for (const d of page) {
          const r = await this.fireOn(table, Number(d.account_id), Number(d.ticket_id), now);
          warnings += r.warning ? 1 : 0;
          violations += r.violation ? 1 : 0;
        }
        if (page.length < PAGE) break;
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
   * Re-syncs the ticket (a reply may have come, or a status change), then takes what is due on one of its
   * timers, the response wait or the resolution target, with a conditional update: the warning at 80 %, the
   * violation at 100 % (with its reporting fact naming the target). A violation found before its warning went
   * out (the server was down through the warning time) is sent alone.
   */
  async fireOn(
    table: 'sla_timers' | 'sla_resolution_timers',
    accountId: number,
    ticketId: number,
    now: number,
  ): Promise<{ warning: boolean; violation: boolean }> {
    return runCommand(this.o.db, async (trx) => {
      await syncSlaTimer(trx, accountId, ticketId, now);
      const out = { warning: false, violation: false };
      const timer = await readTimer(trx, table, accountId, ticketId);
      if (!timer || timer.next_at === null || Number(timer.next_at) > now) return out;
      const t = await trx
        .selectFrom('tickets')
        .select(['ticket_number', 'title', 'channel', 'assignee', 'department_id', 'priority', 'label'])
        .where('account_id', '=', accountId)
        .where('id', '=', ticketId)
        .executeTakeFirstOrThrow();
      const ticket: AlertTicket = {
        id: ticketId,
        accountId,
        ticketNumber: Number(t.ticket_number),
        title: t.title,
        channel: t.channel,
        assignee: t.assignee,
        departmentId: t.department_id === null ? null : Number(t.department_id),
      };
      const startedAt = Number(timer.started_at);
      const sla = Number(timer.sla_minutes);
      const pausedMs = Number(timer.paused_ms);
      const dueAt = Number(timer.due_at);
      // Label SLAs count calendar time; a policy counts in its business hours unless it counts calendar time.
      const hours = timer.label_id === 0 ? await policySchedule(trx, accountId, t) : null;
      const take = async (col: 'warned_at' | 'violated_at') =>
        Number(
          (
            await trx
              .updateTable(table)
              .set({ [col]: now, updated_at: now })
              .where('ticket_id', '=', ticketId)
              .where('started_at', '=', startedAt)
              .where(col, 'is', null)
              .executeTakeFirst()
          ).numUpdatedRows,
        ) === 1;
      const target = table === 'sla_resolution_timers' ? 'resolution' : 'response';
      if (dueAt <= now) {
        if (timer.violated_at === null && (await take('violated_at'))) {
          out.violation = true;
          if (timer.warned_at === null) await take('warned_at');
          const alerted = await takeAlert(trx, accountId, now);
          const breach = { target: timer.target, labelId: timer.label_id, slaMinutes: sla, startedAt, dueAt };
          await recordBreach(trx, ticket, breach, alerted, now);
          const wait = { target, startedAt, sla, waited: countedMinutes(startedAt, now, hours, pausedMs) } as const;
          if (alerted) await sendSlaAlert(trx, ticket, 'violation', wait, now);
        }
      } else if (Number(timer.warn_at) <= now && timer.warned_at === null && (await take('warned_at'))) {
        out.warning = true;
        // A domain event (no socket event) for what acts on warnings, such as automation rules.
        await appendEvent(trx, { accountId, type: SLA_WARNED, payload: { id: ticketId, target } });
        const wait = { target, startedAt, sla, waited: countedMinutes(startedAt, now, hours, pausedMs) } as const;
        if (await takeAlert(trx, accountId, now)) await sendSlaAlert(trx, ticket, 'warning', wait, now);
      }
      const row = (await readTimer(trx, table, accountId, ticketId))!;
      const next = row.paused_at !== null ? null : nextCheck(row);
      await trx.updateTable(table).set({ next_at: next }).where('ticket_id', '=', ticketId).execute();
      return out;
    });
  }
}

/** One timer row, the response wait's or the resolution's, with the columns both have (numbers). */
async function readTimer(
  trx: Trx,
  table: 'sla_timers' | 'sla_resolution_timers',
  accountId: number,
  ticketId: number,
): Promise<TimerRow | undefined> {
  const r =
    table === 'sla_timers'
      ? await trx
          .selectFrom('sla_timers')
          .selectAll()
          .where('account_id', '=', accountId)
          .where('ticket_id', '=', ticketId)
          .executeTakeFirst()
      : await trx
          .selectFrom('sla_resolution_timers')
          .selectAll()
          .where('account_id', '=', accountId)
          .where('ticket_id', '=', ticketId)
          .executeTakeFirst();
  if (!r) return undefined;
  return {
    started_at: Number(r.started_at),
    warn_at: Number(r.warn_at),
    due_at: Number(r.due_at),
    warned_at: numOrNull(r.warned_at),
    violated_at: numOrNull(r.violated_at),
    next_at: numOrNull(r.next_at),
    paused_at: numOrNull(r.paused_at),
    paused_ms: Number(r.paused_ms),
    sla_minutes: Number(r.sla_minutes),
    label_id: 'label_id' in r ? Number(r.label_id) : 0,
    target: 'target' in r ? (r.target as SlaTargetName) : 'resolution',
  };
}

interface TimerRow {
  started_at: number;
  warn_at: number;
  due_at: number;
  warned_at: number | null;
  violated_at: number | null;
  next_at: number | null;
  paused_at: number | null;
  paused_ms: number;
  sla_minutes: number;
  label_id: number;
  target: SlaTargetName;
}

/**
 * A ticket was created (its resolution counts from then) or changed: a message was stored (a customer's starts
 * or continues the wait, an agent's reply ends it), or its labels or status changed (a new SLA label, Pending,
 * a closed ticket). Its timers follow.
 */
export const slaTicketListener: Listener = {
  name: 'sla.ticketUpdated',
  kind: 'transactional',
  events: ['ticket.created', 'ticket.updated'],
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

/**
 * An admin changed the labels (an SLA time) or the SLA settings (policies, business hours, holidays): every
 * running or paused timer of the account is recomputed, and on a settings change also every open ticket (a new
 * policy may give it a response wait or a resolution target it had no timer for).
 */
export const slaLabelsListener: Listener = {
  name: 'sla.labelsUpdated',
  kind: 'transactional',
  events: ['labels.updated', 'sla.settings_updated'],
  async handle(e: StoredEvent, trx: Trx) {
    // Running or paused (Pending) response waits, and resolution targets not stopped.
    const rows = await trx
      .selectFrom('sla_timers')
      .select('ticket_id')
      .where('account_id', '=', e.accountId)
      .where((eb) => eb.or([eb('next_at', 'is not', null), eb('paused_at', 'is not', null)]))
      .execute();
    const ids = new Set(rows.map((r) => Number(r.ticket_id)));
    const resolving = await trx
      .selectFrom('sla_resolution_timers')
      .select('ticket_id')
      .where('account_id', '=', e.accountId)
      .where('stopped_at', 'is', null)
      .execute();
    for (const r of resolving) ids.add(Number(r.ticket_id));
    if (e.type === 'sla.settings_updated') {
      // Every open ticket: a new policy may give it a response wait or a resolution target it had no timer for.
      const open = await trx
        .selectFrom('tickets')
        .select('id')
        .where('account_id', '=', e.accountId)
        .where('closed', 'not in', DONE_TICKET_STATUSES)
        .execute();
      for (const r of open) ids.add(Number(r.id));
    }
    for (const id of ids) await syncSlaTimer(trx, e.accountId, id, Date.now());
  },
};

import {
  isDone,
  type SlaBreach,
  type SlaSettings,
  type SlaTarget,
  type SlaTargetName,
  type TicketSla,
  type WeekSchedule,
} from '@parley/contracts';
import type { DB } from '../../platform/db/db.js';
import { notFound } from '../../platform/http/errors.js';
import type { Trx } from '../../platform/outbox/index.js';
import { accountPolicies, applicablePolicy, dueAfter, numOrNull, scheduleFor } from './policies.js';

type Q = DB | Trx;

/** The account's business hours (account first, then departments), holidays and policies in order. */
export async function readSlaSettings(q: Q, accountId: number): Promise<SlaSettings> {
  const hours = await q
    .selectFrom('business_hours')
    .select(['department_id', 'timezone', 'days'])
    .where('account_id', '=', accountId)
    .orderBy('department_id')
    .execute();
  const holidays = await q
    .selectFrom('holidays')
    .select(['department_id', 'date', 'name'])
    .where('account_id', '=', accountId)
    .orderBy('department_id')
    .orderBy('date')
    .execute();
  const scope = (d: unknown) => (Number(d) === 0 ? null : Number(d));
  const byScope = new Map<number | null, { date: string; name: string }[]>();
  for (const h of holidays) {
    const k = scope(h.department_id);
    byScope.set(k, [...(byScope.get(k) ?? []), { date: h.date, name: h.name }]);
  }
  return {
    businessHours: hours.map((h) => ({
      departmentId: scope(h.department_id),
      timezone: h.timezone,
      days: JSON.parse(h.days) as WeekSchedule,
    })),
    holidays: [...byScope].map(([departmentId, list]) => ({ departmentId, holidays: list })),
    policies: (await accountPolicies(q, accountId)).map((p) => ({
      id: p.id,
      name: p.name,
      priority: p.priority as SlaSettings['policies'][number]['priority'],
      channel: p.channel,
      labelId: p.label_id,
      departmentId: p.department_id,
      firstResponse: p.first_response,
      nextResponse: p.next_response,
      resolution: p.resolution,
      calendar: p.calendar === 1,
    })),
  };
}

const target = (dueAt: number, doneAt: number | null, now: number): SlaTarget => ({
  dueAt,
  state: doneAt !== null ? (doneAt <= dueAt ? 'met' : 'breached') : now > dueAt ? 'breached' : 'running',
});

/**
 * A target from its timer row: breached when the engine recorded the breach (or the due time has passed and the
 * check has yet to run), met when it ended in time (`doneAt`: answered, or Resolved/Closed), paused while Pending.
 */
const fromTimer = (
  row: { due_at: unknown; paused_at: unknown },
  doneAt: number | null,
  breach: SlaBreach | undefined,
  now: number,
): SlaTarget => {
  if (breach) return { dueAt: breach.dueAt, state: 'breached', breachedAt: breach.breachedAt };
  const dueAt = Number(row.due_at);
  if (doneAt === null && numOrNull(row.paused_at) !== null) return { dueAt, state: 'paused' };
  return target(dueAt, doneAt, now);
};

/**
 * A ticket's targets under the policy that applies to it now (all null without one), read from what the engine
 * stored:
 * - first response: the response timer while its wait is the first (`target`), else its recorded breach, else
 *   met by the first agent reply (due the target's time after creation), else counting from creation;
 * - next response: the response timer's current (or last) wait after the first reply, else the last recorded
 *   next-response breach;
 * - resolution: the resolution timer (from creation until Resolved or Closed, paused while Pending);
 * - breaches: every recorded breach of the ticket and its target.
 */
export async function ticketSla(db: DB, accountId: number, ticketId: number, now: number): Promise<TicketSla> {
  const t = await db
    .selectFrom('tickets')
    .select(['priority', 'channel', 'label', 'department_id', 'created_at', 'updated_at', 'closed'])
    .where('account_id', '=', accountId)
    .where('id', '=', ticketId)
    .executeTakeFirst();
  if (!t) throw notFound('Ticket not found.');
  const none: TicketSla = { policy: null, firstResponse: null, nextResponse: null, resolution: null };
  const policy = await applicablePolicy(db, accountId, t);
  if (!policy) return none;
  const schedule = policy.calendar ? null : await scheduleFor(db, accountId, t.department_id);
  const created = Number(t.created_at);
  const agents = db.selectFrom('users').select('username').where('account_id', '=', accountId);
  const first = await db
    .selectFrom('messages')
    .select((eb) => eb.fn.min('created_at').as('at'))
    .where('account_id', '=', accountId)
    .where('ticket_id', '=', ticketId)
    .where('type', '<>', 'system')
    .where('sender', 'in', agents)
    .executeTakeFirst();
  const firstReply = numOrNull(first?.at);
  const timer = await db
    .selectFrom('sla_timers')
    .select(['started_at', 'due_at', 'answered_at', 'paused_at', 'label_id', 'target'])
    .where('account_id', '=', accountId)
    .where('ticket_id', '=', ticketId)
    .executeTakeFirst();
  const resolving = await db
    .selectFrom('sla_resolution_timers')
    .select(['started_at', 'due_at', 'stopped_at', 'paused_at'])
    .where('account_id', '=', accountId)
    .where('ticket_id', '=', ticketId)
    .executeTakeFirst();
  const facts = await db
    .selectFrom('sla_breaches')
    .select(['target', 'waited_from', 'due_at', 'breached_at'])
    .where('account_id', '=', accountId)
    .where('ticket_id', '=', ticketId)
    .orderBy('breached_at')
    .orderBy('id')
    .execute();
  const breaches = facts.map((b) => ({
    target: b.target as SlaTargetName,
    waitedFrom: Number(b.waited_from),
    dueAt: Number(b.due_at),
    breachedAt: Number(b.breached_at),
  }));
  const breachOf = (name: SlaTargetName, waitedFrom?: number) =>
    breaches.findLast((b) => b.target === name && (waitedFrom === undefined || b.waitedFrom === waitedFrom));
  // The response timer counts a policy's wait (label 0); a label's SLA wait is not this policy's target.
  const wait = timer && Number(timer.label_id) === 0 ? timer : undefined;
  const waitOf = (name: SlaTargetName) =>
    wait && wait.target === name
      ? fromTimer(wait, numOrNull(wait.answered_at), breachOf(name, Number(wait.started_at)), now)
      : null;
  const stored = (b: SlaBreach | undefined): SlaTarget | null =>
    b ? { dueAt: b.dueAt, state: 'breached', breachedAt: b.breachedAt } : null;

  let firstResponse: SlaTarget | null = null;
  if (policy.first_response !== null)
    firstResponse =
      waitOf('first_response') ??
      stored(breachOf('first_response')) ??
      target(dueAfter(created, policy.first_response, schedule), firstReply, now);
  const nextResponse =
    policy.next_response === null || firstReply === null
      ? null
      : (waitOf('next_response') ?? stored(breachOf('next_response')));
  let resolution: SlaTarget | null = null;
  if (policy.resolution !== null)
    resolution = resolving
      ? fromTimer(resolving, numOrNull(resolving.stopped_at), breachOf('resolution'), now)
      : target(
          dueAfter(created, policy.resolution, schedule),
          isDone(Number(t.closed)) ? Number(t.updated_at) : null,
          now,
        );
  return {
    policy: { id: policy.id, name: policy.name },
    firstResponse,
    nextResponse,
    resolution,
    breaches: breaches.map(({ target: name, dueAt, breachedAt }) => ({ target: name, dueAt, breachedAt })),
  };
}

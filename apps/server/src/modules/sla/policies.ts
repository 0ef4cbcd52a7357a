import { addBusinessTime, businessMinutesBetween, SLA_WARNING_SHARE, type WeekSchedule } from '@parley/contracts';
import type { DB } from '../../platform/db/db.js';
import type { Trx } from '../../platform/outbox/index.js';

type Q = DB | Trx;

export interface PolicyRow {
  id: number;
  name: string;
  priority: string | null;
  channel: string | null;
  label_id: number | null;
  department_id: number | null;
  first_response: number | null;
  next_response: number | null;
  resolution: number | null;
  calendar: number;
}

/** What a policy matches on. */
export interface PolicyTicket {
  priority: string;
  channel: string;
  label: string;
  department_id: number | null;
}

const parseIds = (s: string): number[] => {
  try {
    const v = JSON.parse(s) as unknown;
    return Array.isArray(v) ? v.filter((x): x is number => typeof x === 'number') : [];
  } catch {
    return [];
  }
};

/** The account's policies in their stated order (the first that matches applies). */
export async function accountPolicies(q: Q, accountId: number): Promise<PolicyRow[]> {
  const rows = await q
    .selectFrom('sla_policies')
    .select([
      'id',
      'name',
      'priority',
      'channel',
      'label_id',
      'department_id',
      'first_response',
      'next_response',
      'resolution',
      'calendar',
    ])
    .where('account_id', '=', accountId)
    .orderBy('position')
    .orderBy('id')
    .execute();
  const n = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return rows.map((r) => ({
    ...r,
    id: Number(r.id),
    label_id: n(r.label_id),
    department_id: n(r.department_id),
    first_response: n(r.first_response),
    next_response: n(r.next_response),
    resolution: n(r.resolution),
    calendar: Number(r.calendar),
  }));
}

/**
 * The first policy, in list order, whose every condition holds: priority, channel, one of the ticket's
 * labels, department. A condition left empty matches any ticket.
 */
export function matchPolicy(policies: PolicyRow[], t: PolicyTicket): PolicyRow | null {
  const labels = parseIds(t.label);
  return (
    policies.find(
      (p) =>
        (p.priority === null || p.priority === t.priority) &&
        (p.channel === null || p.channel === t.channel) &&
        (p.label_id === null || labels.includes(p.label_id)) &&
        (p.department_id === null || p.department_id === (t.department_id === null ? null : Number(t.department_id))),
    ) ?? null
  );
}

export async function applicablePolicy(q: Q, accountId: number, t: PolicyTicket) {
  return matchPolicy(await accountPolicies(q, accountId), t);
}

/** The hours the policy that applies to the ticket counts in; null for calendar time or no policy. */
export async function policySchedule(q: Q, accountId: number, t: PolicyTicket): Promise<BusinessSchedule | null> {
  const policy = await applicablePolicy(q, accountId, t);
  return policy && !policy.calendar ? scheduleFor(q, accountId, t.department_id) : null;
}

export interface BusinessSchedule {
  timezone: string;
  days: WeekSchedule;
  holidays: string[];
}

/**
 * The hours a ticket of this department counts in: the department's own when it has them, else the
 * account's; holidays are the account's and the department's together. Null: no hours set (calendar time).
 */
export async function scheduleFor(
  q: Q,
  accountId: number,
  departmentId: number | null,
): Promise<BusinessSchedule | null> {
  const scopes = departmentId === null ? [0] : [0, Number(departmentId)];
  const hours = await q
    .selectFrom('business_hours')
    .select(['department_id', 'timezone', 'days'])
    .where('account_id', '=', accountId)
    .where('department_id', 'in', scopes)
    .execute();
  const own = hours.find((h) => Number(h.department_id) !== 0) ?? hours.find((h) => Number(h.department_id) === 0);
  if (!own) return null;
  const holidays = await q
    .selectFrom('holidays')
    .select('date')
    .where('account_id', '=', accountId)
    .where('department_id', 'in', scopes)
    .execute();
  let days: WeekSchedule;
  try {
    days = JSON.parse(own.days) as WeekSchedule;
  } catch {
    return null;
  }
  return { timezone: own.timezone, days, holidays: holidays.map((h) => h.date) };
}

/** `minutes` after `start`, in business time under `schedule`, or calendar time without one. */
export const dueAfter = (start: number, minutes: number, schedule: BusinessSchedule | null) =>
  Math.round(
    schedule
      ? addBusinessTime(start, minutes, schedule.days, schedule.holidays, schedule.timezone)
      : start + minutes * 60_000,
  );

/** The time that counts between two instants, in ms: business time under `schedule`, calendar time without. */
export const countedMs = (from: number, to: number, schedule: BusinessSchedule | null) =>
  Math.round(
    schedule
      ? businessMinutesBetween(from, to, schedule.days, schedule.holidays, schedule.timezone) * 60_000
      : Math.max(0, to - from),
  );

/**
 * The warning and due times of a target of `minutes` counted from `start` (the warning at the same share as
 * label SLAs), both moved on by `pausedMs` of counted time spent Pending.
 */
export const waitTimes = (start: number, minutes: number, schedule: BusinessSchedule | null, pausedMs = 0) => ({
  warn_at: dueAfter(start, minutes * SLA_WARNING_SHARE + pausedMs / 60_000, schedule),
  due_at: dueAfter(start, minutes + pausedMs / 60_000, schedule),
});

/** The whole minutes a target has counted at `now`: counted time since `start`, less the time spent Pending. */
export const countedMinutes = (start: number, now: number, schedule: BusinessSchedule | null, pausedMs: number) =>
  Math.max(0, Math.floor((countedMs(start, now, schedule) - pausedMs) / 60_000));

/** When the engine must look at a timer next: its warning, then its due time; null once it has violated. */
export const nextCheck = (r: {
  warn_at: number;
  due_at: number;
  warned_at: number | null;
  violated_at: number | null;
}) => (r.violated_at !== null ? null : r.warned_at !== null ? r.due_at : r.warn_at);

/** `v` as a number, keeping null (database drivers may return bigints as strings). */
export const numOrNull = (v: unknown) => (v === null || v === undefined ? null : Number(v));

import { z } from 'zod';
import { BUSINESS_HOURS_STRINGS, isIsoDate, isTimeZone, scheduleError } from './businessHours.js';
import { TICKET_PRIORITIES } from './tickets.js';

/**
 * Business hours, holidays and SLA policies (design: the spec has SLA alerts on labels only). A policy sets
 * targets for the first response, the next responses and the resolution, counted in the business hours of
 * the ticket's department (or the account's) unless the policy counts calendar time.
 */

const minutes = (n: number) => `${n} minute${n === 1 ? '' : 's'}`;

export const SLA_POLICY_STRINGS = {
  saved: 'Saved.',
  noDepartment: 'No such department.',
  noLabel: 'No such label.',
  noTarget: 'Give the policy at least one target.',
  nameMissing: 'Give the policy a name.',
  firstResponse: 'First response',
  nextResponse: 'Next response',
  resolution: 'Resolution',
  breached: 'Breached',
  met: 'Met',
  paused: 'Paused',
  /**
   * The resolution target's alerts, in the words of the spec's SLA alerts (`SLA_STRINGS`: "has waited N minutes
   * of its M minutes for a reply") with "resolution" where the reply was. N counts the minutes the target
   * counts: business minutes under business hours, without the time spent Pending.
   */
  resolutionWarningTitle: (ticketNumber: number) => `Resolution SLA warning: #${ticketNumber}`,
  resolutionWarningBody: (title: string, waited: number, sla: number) =>
    `"${title}" has waited ${minutes(waited)} of its ${minutes(sla)} for a resolution.`,
  resolutionViolationTitle: (ticketNumber: number) => `Resolution SLA violated: #${ticketNumber}`,
  resolutionViolationBody: (title: string, sla: number) =>
    `"${title}" has waited more than ${minutes(sla)} for a resolution.`,
} as const;

/**
 * The targets a policy sets, as `sla_timers.target` and `sla_breaches.target` name them: a response wait is
 * the first response until an agent has answered once, the next response after that (label SLAs too); the
 * resolution runs from the ticket's creation until it is Resolved or Closed.
 */
export const SLA_TARGET_NAMES = ['first_response', 'next_response', 'resolution'] as const;
export type SlaTargetName = (typeof SLA_TARGET_NAMES)[number];

const Minutes = z.number().int().min(1).max(525_600).nullable();

export const BusinessIntervalSchema = z.object({ start: z.string().max(5), end: z.string().max(5) }).strict();

/** The hours of the account (departmentId null) or of one department (overrides the account's). */
export const BusinessHours = z.object({
  departmentId: z.number().int().positive().nullable(),
  timezone: z.string().max(64),
  days: z.array(z.array(BusinessIntervalSchema).max(8)).length(7),
});
export type BusinessHours = z.infer<typeof BusinessHours>;

export const BusinessHoursInput = BusinessHours.strict().superRefine((v, ctx) => {
  if (!isTimeZone(v.timezone))
    ctx.addIssue({ code: 'custom', path: ['timezone'], message: BUSINESS_HOURS_STRINGS.badZone(v.timezone) });
  const bad = scheduleError(v.days);
  if (bad) ctx.addIssue({ code: 'custom', path: ['days'], message: bad });
});
export type BusinessHoursInput = z.infer<typeof BusinessHoursInput>;

/** Removes a department's own hours (it follows the account's again). */
export const BusinessHoursDeleteInput = z.object({ departmentId: z.number().int().positive() }).strict();

export const Holiday = z.object({ date: z.string().max(10), name: z.string().max(100) }).strict();
export type Holiday = z.infer<typeof Holiday>;

/** The holidays of the account (departmentId null) or of one department (added to the account's). */
export const HolidaysInput = z
  .object({ departmentId: z.number().int().positive().nullable(), holidays: z.array(Holiday).max(366) })
  .strict()
  .superRefine((v, ctx) => {
    const seen = new Set<string>();
    v.holidays.forEach((h, i) => {
      if (!isIsoDate(h.date))
        ctx.addIssue({
          code: 'custom',
          path: ['holidays', i, 'date'],
          message: BUSINESS_HOURS_STRINGS.badDate(h.date),
        });
      else if (seen.has(h.date))
        ctx.addIssue({
          code: 'custom',
          path: ['holidays', i, 'date'],
          message: BUSINESS_HOURS_STRINGS.duplicateDate(h.date),
        });
      seen.add(h.date);
    });
  });
export type HolidaysInput = z.infer<typeof HolidaysInput>;

export const HolidayList = z.object({ departmentId: z.number().int().nullable(), holidays: z.array(Holiday) });

/**
 * One policy. Conditions left null match anything; every condition set must hold. Policies are tried in
 * their list order and the first that matches applies. Targets are minutes (null: no target).
 */
export const SlaPolicy = z
  .object({
    name: z.string().trim().min(1, SLA_POLICY_STRINGS.nameMissing).max(100),
    priority: z.enum(TICKET_PRIORITIES).nullable(),
    channel: z.string().max(40).nullable(),
    labelId: z.number().int().positive().nullable(),
    departmentId: z.number().int().positive().nullable(),
    firstResponse: Minutes,
    nextResponse: Minutes,
    resolution: Minutes,
    /** Count calendar time instead of business hours. */
    calendar: z.boolean(),
  })
  .strict();
export type SlaPolicy = z.infer<typeof SlaPolicy>;

export const SlaPoliciesInput = z
  .object({ policies: z.array(SlaPolicy).max(50) })
  .strict()
  .superRefine((v, ctx) => {
    v.policies.forEach((p, i) => {
      if (p.firstResponse === null && p.nextResponse === null && p.resolution === null)
        ctx.addIssue({ code: 'custom', path: ['policies', i], message: SLA_POLICY_STRINGS.noTarget });
    });
  });
export type SlaPoliciesInput = z.infer<typeof SlaPoliciesInput>;

export const SlaSettings = z.object({
  businessHours: z.array(BusinessHours),
  holidays: z.array(HolidayList),
  policies: z.array(SlaPolicy.extend({ id: z.number().int() })),
});
export type SlaSettings = z.infer<typeof SlaSettings>;
export const SlaSettingsAnswer = z.object({ result: z.literal('success'), data: SlaSettings });
export const SlaSavedAnswer = z.object({ result: z.literal('success'), description: z.string(), data: SlaSettings });

/**
 * One target of a ticket: when it is due and where it stands. `paused` while the ticket is Pending (the due
 * time then is where it stood when the pause began; it moves by the business time spent Pending).
 * `breachedAt` when the engine recorded the breach (`sla_breaches`).
 */
export const SlaTarget = z.object({
  dueAt: z.number(),
  state: z.enum(['running', 'paused', 'met', 'breached']),
  breachedAt: z.number().optional(),
});
export type SlaTarget = z.infer<typeof SlaTarget>;

/** A target the ticket missed, as the engine recorded it (`sla_breaches`): due then, breached then. */
export const SlaBreach = z.object({
  target: z.enum(SLA_TARGET_NAMES),
  dueAt: z.number(),
  breachedAt: z.number(),
});
export type SlaBreach = z.infer<typeof SlaBreach>;

/**
 * The ticket's SLA under its policy; every target null (and no `breaches`) when no policy applies. `breaches`:
 * every breach recorded for the ticket, which target and when, oldest first (a ticket may miss several next
 * responses; the targets above show only the current one).
 */
export const TicketSla = z.object({
  policy: z.object({ id: z.number().int(), name: z.string() }).nullable(),
  firstResponse: SlaTarget.nullable(),
  nextResponse: SlaTarget.nullable(),
  resolution: SlaTarget.nullable(),
  breaches: z.array(SlaBreach).optional(),
});
export type TicketSla = z.infer<typeof TicketSla>;
export const TicketSlaAnswer = z.object({ result: z.literal('success'), data: TicketSla });

/**
 * The ticket waits for the team: the customer has written (`last_message_at`) and no agent has answered
 * since (`has_responded`, cleared by every customer message). The SLA engine starts its timer from this; a
 * ticket for which it holds is never shown as "Replied", which reads the same column.
 */
export const waitsForTeam = (t: { lastMessageAt: number; hasResponded: boolean }) =>
  t.lastMessageAt > 0 && !t.hasResponded;

/** "2 h 5 min left" / "3 min over": a target's distance from now, for the ticket panel. */
export function slaTimeLeft(dueAt: number, now: number): string {
  const over = now > dueAt;
  const mins = Math.floor(Math.abs(dueAt - now) / 60_000);
  const d = Math.floor(mins / 1440);
  const h = Math.floor((mins % 1440) / 60);
  const m = mins % 60;
  const text = d > 0 ? `${d} d ${h} h` : h > 0 ? `${h} h ${m} min` : `${m} min`;
  return over ? `${text} over` : `${text} left`;
}

import { z } from 'zod';

/**
 * Time tracking (`/timer` and the ticket's "Time" field; see docs/timer.md): time entries per ticket per
 * agent, from a running timer (one per person) or entered by hand, and the team's time over a range of days.
 */
export const TIMER_LIMITS = { minutes: 1440, note: 500, rangeDays: 366, entries: 2000 } as const;
/** The furthest a caller's UTC offset may be, in minutes east (UTC-14 .. UTC+14). */
const MAX_TZ = 14 * 60;

export const TIMER_STRINGS = {
  title: 'Time tracked',
  field: 'Time',
  start: 'Start',
  stop: 'Stop',
  addTime: 'Add time',
  total: 'Total on this ticket',
  notFound: 'Ticket not found.',
  entryNotFound: 'Time entry not found.',
  notYours: 'You can change only your own time entries.',
  onlyOwn: 'You can see only your own time.',
  stopFirst: 'Stop the timer before changing this entry.',
  raced: 'Another timer was started at the same moment. Try again.',
  badDay: 'Dates are YYYY-MM-DD.',
  badMinutes: `Minutes are a whole number from 1 to ${TIMER_LIMITS.minutes}.`,
  endBeforeStart: 'The end must be on or after the start.',
  rangeTooLong: `Ask for ${TIMER_LIMITS.rangeDays} days at most.`,
  badTz: `The time zone offset is a whole number of minutes from -${MAX_TZ} to ${MAX_TZ}.`,
  stoppedOther: (n: number) => `Stopped the timer on #${n}.`,
  runsElsewhere: 'Your timer runs on',
} as const;

const id = z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER);
/** A real calendar day, YYYY-MM-DD. */
const day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, TIMER_STRINGS.badDay)
  .refine((s) => {
    const d = new Date(`${s}T00:00:00Z`);
    return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
  }, TIMER_STRINGS.badDay);

/** One time entry as every screen shows it. `seconds` is 0 while `running`; the clock counts from `started_at`. */
export const TimeEntry = z.object({
  id: z.number(),
  ticket_id: z.number(),
  ticket_number: z.number(),
  subject: z.string(),
  user_id: z.number(),
  /** The agent's display name (name, else username). */
  user: z.string(),
  /** The day the time counts for, YYYY-MM-DD. */
  day: z.string(),
  started_at: z.number(),
  ended_at: z.number().nullable(),
  seconds: z.number(),
  note: z.string(),
  source: z.enum(['timer', 'manual']),
  running: z.boolean(),
});
export type TimeEntry = z.infer<typeof TimeEntry>;

/** The totals of one agent over a range: finished entries only (a running timer counts once stopped). */
export const TimeTotal = z.object({ user_id: z.number(), user: z.string(), seconds: z.number(), entries: z.number() });
export type TimeTotal = z.infer<typeof TimeTotal>;

/** `GET /api/timer/ticket/:id`. `now` is the server's clock, so a running clock ticks from the server's time. */
export const TicketTimeAnswer = z.object({
  result: z.literal('success'),
  entries: z.array(TimeEntry),
  /** Everyone's finished time on the ticket, in seconds. */
  total_seconds: z.number(),
  /** The caller's running timer when it runs on this ticket. */
  running: TimeEntry.nullable(),
  /** The caller's running timer when it runs on another ticket (starting here stops it). */
  elsewhere: TimeEntry.nullable(),
  now: z.number(),
});
export type TicketTimeAnswer = z.infer<typeof TicketTimeAnswer>;

/** `POST /api/timer/start`: `tz` is the caller's offset from UTC in minutes east (UTC+2 is 120), for the day. */
export const TimerStartBody = z.object({
  ticket_id: id,
  tz: z.number({ message: TIMER_STRINGS.badTz }).int(TIMER_STRINGS.badTz).min(-MAX_TZ).max(MAX_TZ).default(0),
});
export const TimerStartAnswer = z.object({
  result: z.literal('success'),
  entry: TimeEntry,
  /** The timer that was running elsewhere and was stopped by this start. */
  stopped: TimeEntry.nullable(),
});
export const TimerStopAnswer = z.object({ result: z.literal('success'), entry: TimeEntry.nullable() });

const minutes = z
  .number({ message: TIMER_STRINGS.badMinutes })
  .int(TIMER_STRINGS.badMinutes)
  .min(1, TIMER_STRINGS.badMinutes)
  .max(TIMER_LIMITS.minutes, TIMER_STRINGS.badMinutes);
const note = z.string().trim().max(TIMER_LIMITS.note).default('');

/** `POST /api/timer/entries`: time entered by hand. */
export const TimeEntryInput = z.object({ ticket_id: id, minutes, date: day, note });
export type TimeEntryInput = z.infer<typeof TimeEntryInput>;
/** `PUT /api/timer/entries/:id`. */
export const TimeEntryChange = z.object({ minutes, date: day, note });
export type TimeEntryChange = z.infer<typeof TimeEntryChange>;
export const TimeEntryAnswer = z.object({ result: z.literal('success'), entry: TimeEntry });

/** `GET /api/timer/entries?from&to[&user_id]`: days YYYY-MM-DD, both included. */
export const TimeRangeQuery = z
  .object({ from: day, to: day, user_id: id.optional() })
  .refine((q) => q.to >= q.from, { message: TIMER_STRINGS.endBeforeStart, path: ['to'] })
  .refine((q) => (Date.parse(q.to) - Date.parse(q.from)) / 86_400_000 < TIMER_LIMITS.rangeDays, {
    message: TIMER_STRINGS.rangeTooLong,
    path: ['to'],
  });
export type TimeRangeQuery = z.infer<typeof TimeRangeQuery>;
export const TimeRangeAnswer = z.object({
  result: z.literal('success'),
  entries: z.array(TimeEntry),
  /** Per agent, most time first. */
  totals: z.array(TimeTotal),
  total_seconds: z.number(),
  /** More entries than the list holds: the totals still count them all. */
  truncated: z.boolean(),
});
export type TimeRangeAnswer = z.infer<typeof TimeRangeAnswer>;

/** h:mm of a number of seconds (rounded down to the minute): 0:05, 1:30, 26:00. */
export function hoursMinutes(seconds: number): string {
  const m = Math.max(0, Math.floor(seconds / 60));
  return `${Math.floor(m / 60)}:${String(m % 60).padStart(2, '0')}`;
}

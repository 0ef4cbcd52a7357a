import { z } from 'zod';

/**
 * The calendar (SHELL-20, SHELL-21; see docs/calendar.md): the account's events, its holidays (the SLA
 * holiday lists) and the appointments customers asked for (a ticket's Preferred Appointment Date), by
 * month; one contact's at `/calendar/:contact`; an event's page at `/calendar/event/:eventId`; and a private
 * iCalendar feed per user for their own calendar app.
 */
export const CALENDAR_LIMITS = { title: 200, notes: 5000, rangeDays: 62 } as const;

export const CALENDAR_STRINGS = {
  title: 'Calendar',
  hidden: 'The calendar is hidden for your account. Ask an admin.',
  notFound: 'Event not found.',
  endBeforeStart: 'The end must be after the start.',
  rangeTooLong: `Ask for ${CALENDAR_LIMITS.rangeDays} days at most.`,
  badDay: 'Dates are YYYY-MM-DD.',
  contactNotFound: 'Contact not found.',
  noneThisMonth: 'Nothing this month: no events, holidays or appointments.',
  feedHint:
    'Add this private address to your own calendar app to see the events there. A new address stops the old one.',
} as const;

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, CALENDAR_STRINGS.badDay);
const id = z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER);

/** `GET /api/calendar?from&to[&contact]`: days YYYY-MM-DD (UTC), both included. */
export const CalendarQuery = z.object({ from: day, to: day, contact: id.optional() });

export const CalendarEvent = z.object({
  id: z.number(),
  title: z.string(),
  starts_at: z.number(),
  ends_at: z.number(),
  all_day: z.boolean(),
  notes: z.string(),
  contact_id: z.number().nullable(),
  contact_name: z.string(),
  ticket_id: z.number().nullable(),
  created_by: z.string(),
});
export type CalendarEvent = z.infer<typeof CalendarEvent>;
export const CalendarHoliday = z.object({ date: z.string(), name: z.string(), department: z.string() });
export type CalendarHoliday = z.infer<typeof CalendarHoliday>;
export const CalendarAppointment = z.object({
  ticket_id: z.number(),
  ticket_number: z.number(),
  title: z.string(),
  name: z.string(),
  /** The appointment's day, YYYY-MM-DD. */
  date: z.string(),
  contact_id: z.number().nullable(),
});
export type CalendarAppointment = z.infer<typeof CalendarAppointment>;
export const CalendarAnswer = z.object({
  result: z.literal('success'),
  events: z.array(CalendarEvent),
  holidays: z.array(CalendarHoliday),
  appointments: z.array(CalendarAppointment),
});
export type CalendarAnswer = z.infer<typeof CalendarAnswer>;

export const EventInput = z
  .object({
    title: z.string().trim().min(1, 'The event needs a title.').max(CALENDAR_LIMITS.title),
    starts_at: z.number().int().min(0).max(8_640_000_000_000),
    ends_at: z.number().int().min(0).max(8_640_000_000_000),
    all_day: z.boolean().default(false),
    notes: z.string().max(CALENDAR_LIMITS.notes).default(''),
    contact_id: id.nullable().default(null),
    ticket_id: id.nullable().default(null),
  })
  .refine((e) => e.ends_at >= e.starts_at, { message: CALENDAR_STRINGS.endBeforeStart, path: ['ends_at'] });
export type EventInput = z.infer<typeof EventInput>;
export const EventAnswer = z.object({ result: z.literal('success'), event: CalendarEvent });
export const FeedAnswer = z.object({ result: z.literal('success'), token: z.string() });

/** The key in a ticket's `other` that holds the customer's preferred appointment date (TICKET-15, TICKET-62). */
export const APPOINTMENT_KEY = 'Preferred Appointment Date';
/** The customer's identity document in a ticket's `other`, as the new-ticket dialog writes it (SHELL-44). */
export const TICKET_IDENTITY_KEYS = { type: 'ID type', number: 'ID number' } as const;

/** Reads a date as YYYY-MM-DD (optionally with a time), D/M/YYYY, or unix seconds/ms; null when it is none. */
export function parseAppointment(v: unknown): Date | null {
  if (typeof v === 'number' && Number.isFinite(v)) return new Date(v < 1e12 ? v * 1000 : v);
  if (typeof v !== 'string' || v.trim() === '') return null;
  const s = v.trim();
  let m = /^(\d{4})-(\d{1,2})-(\d{1,2})/.exec(s);
  if (m) return new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})/.exec(s);
  if (m) return new Date(Number(m[3]), Number(m[2]) - 1, Number(m[1]));
  if (/^\d{9,13}$/.test(s)) return parseAppointment(Number(s));
  return null;
}

/**
 * TICKET-62: whole calendar days from today to the appointment (negative when past), and whether it is
 * urgent (under 2 days, shown red). Null when the ticket has no readable appointment date.
 */
export function appointmentDays(
  other: Record<string, unknown>,
  now: number = Date.now(),
): { days: number; urgent: boolean } | null {
  const d = parseAppointment(other[APPOINTMENT_KEY]);
  if (!d || Number.isNaN(d.getTime())) return null;
  const today = new Date(now);
  const a = Date.UTC(d.getFullYear(), d.getMonth(), d.getDate());
  const b = Date.UTC(today.getFullYear(), today.getMonth(), today.getDate());
  const days = Math.round((a - b) / 86_400_000);
  return { days, urgent: days < 2 };
}

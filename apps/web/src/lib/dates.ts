import { formatDate, slaTimeLeft, ticketDate } from '@parley/contracts';

/**
 * Every date the web app shows goes through here (docs/decisions.md, entry 1):
 * - `formatDay`: YYYY-MM-DD (CONST-02), the default for a date on its own (profile window, forms, details);
 * - `formatDateTime`: YYYY-MM-DD HH:mm (or HH:mm:ss), a moment (sessions, audit log, announcements);
 * - `formatTime`: HH:mm (or HH:mm:ss), beside something that already says the day (a message, team activity);
 * - `listDate`: in lists, today's time, "Yesterday", else the day: D/M/YYYY for tickets (TICKET-63 names it),
 *   YYYY-MM-DD for every other list;
 * - `conversationDay`: DD/MM/YYYY, the conversation's date separators (MSG-18 names it);
 * - `elapsed`: how long something has lasted ("45 s", "12 min", "2 h 5 min", "3 d 4 h");
 * - `timeLeft`: a due time's distance from now ("2 h 5 min left", "3 min over").
 * All in the browser's time zone, 24-hour clock. An invalid input gives '' (CONST-02).
 */
type When = number | Date | null | undefined;

const pad = (n: number) => String(n).padStart(2, '0');
const toDate = (input: When): Date | null => {
  if (input === null || input === undefined) return null;
  const d = typeof input === 'number' ? new Date(input) : input;
  return Number.isNaN(d.getTime()) ? null : d;
};

/** CONST-02: YYYY-MM-DD; also takes a string starting with a YYYY-MM-DD date. */
export const formatDay = (input: When | string): string => formatDate(input);

/** HH:mm, or HH:mm:ss with `seconds`. */
export function formatTime(input: When, o: { seconds?: boolean } = {}): string {
  const d = toDate(input);
  if (!d) return '';
  const hm = `${pad(d.getHours())}:${pad(d.getMinutes())}`;
  return o.seconds ? `${hm}:${pad(d.getSeconds())}` : hm;
}

/** YYYY-MM-DD HH:mm (HH:mm:ss with `seconds`). */
export function formatDateTime(input: When, o: { seconds?: boolean } = {}): string {
  const d = toDate(input);
  return d ? `${formatDate(d)} ${formatTime(d, o)}` : '';
}

/** The label of a date in a list: today the time, yesterday "Yesterday", else YYYY-MM-DD. */
export function listDate(input: When, now: number = Date.now()): string {
  const d = toDate(input);
  if (!d) return '';
  const today = new Date(now);
  const same = (a: Date, b: Date) =>
    a.getFullYear() === b.getFullYear() && a.getMonth() === b.getMonth() && a.getDate() === b.getDate();
  if (same(d, today)) return formatTime(d);
  if (same(d, new Date(today.getFullYear(), today.getMonth(), today.getDate() - 1))) return 'Yesterday';
  return formatDate(d);
}

/** TICKET-63: a ticket's date in the ticket lists, the panel and the popup (D/M/YYYY beyond yesterday). */
export const ticketListDate = (ms: number, now: number = Date.now()) => ticketDate(ms, now);

/** MSG-18: DD/MM/YYYY, the day separators of a conversation. */
export function conversationDay(input: When): string {
  const d = toDate(input);
  return d ? `${pad(d.getDate())}/${pad(d.getMonth() + 1)}/${d.getFullYear()}` : '';
}

/** REPORT-08: DD-MM-YYYY, the report's date range picker. */
export function pickerDay(input: When): string {
  const d = toDate(input);
  return d ? `${pad(d.getDate())}-${pad(d.getMonth() + 1)}-${d.getFullYear()}` : '';
}

/** REPORT-08, REPORT-10: a typed DD-MM-YYYY as the YYYY-MM-DD a request sends; '' unless a real day. */
export function pickerToRequestDay(text: string): string {
  const m = /^(\d{2})-(\d{2})-(\d{4})$/.exec(text.trim());
  if (!m) return '';
  return formatDate(`${m[3]}-${m[2]}-${m[1]}`);
}

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
/** The calendar's heading: "March 2031" for a month (0-based) of a year. */
export const monthTitle = (year: number, month: number) => `${MONTHS[month]} ${year}`;

/** A time as a `datetime-local` input shows it ("2031-03-04T09:30"), in the browser's time zone. */
export function toLocalInput(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** What a `datetime-local` input holds, as milliseconds; null when it is not a time. */
export function fromLocalInput(value: string): number | null {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(value)) return null;
  const ms = new Date(value).getTime();
  return Number.isFinite(ms) ? ms : null;
}

/** A length of time in its two largest units: "45 s", "12 min", "2 h 5 min", "3 d 4 h"; '' for null. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '';
  const secs = Math.max(0, Math.floor(ms / 1000));
  if (secs < 60) return `${secs} s`;
  const mins = Math.floor(secs / 60);
  const d = Math.floor(mins / 1440);
  const h = Math.floor((mins % 1440) / 60);
  const m = mins % 60;
  if (d > 0) return `${d} d ${h} h`;
  return h > 0 ? `${h} h ${m} min` : `${m} min`;
}

/** How long something has lasted, from `since` to `now`, as `formatDuration` reads it (never negative). */
export const elapsed = (since: number, now: number): string => formatDuration(now - since);

/** A due time's distance from now, "2 h 5 min left" or "3 min over" (the ticket's SLA panel reads the same). */
export const timeLeft = (dueAt: number, now: number): string => slaTimeLeft(dueAt, now);

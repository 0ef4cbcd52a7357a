import { formatDate, shownDay, slaTimeLeft, ticketDate } from '@parley/contracts';

/**
 * Every date the web app shows goes through here (docs/decisions.md, entry 1): one format, D/M/YYYY.
 * - `formatDay`: D/M/YYYY (no zero padding, "5/3/2026"), a date on its own (forms, details, a due day);
 * - `formatDateTime`: D/M/YYYY HH:mm (or HH:mm:ss), a moment (sessions, audit log, announcements);
 * - `formatTime`: HH:mm (or HH:mm:ss), beside something that already says the day (a message, team activity);
 * - `listDate`: in lists, today's time, "Yesterday", else D/M/YYYY (TICKET-63's rule, for every list);
 * - `conversationDay`: DD/MM/YYYY, the conversation's date separators (MSG-18 names it);
 * - `pickerDay`: DD-MM-YYYY, the report's range picker (REPORT-08 names it);
 * - `elapsed`: how long something has lasted ("45 s", "12 min", "2 h 5 min", "3 d 4 h");
 * - `timeLeft`: a due time's distance from now ("2 h 5 min left", "3 min over").
 * A date as data, never shown as such (a map key, an `<input type="date">` value, a request's `from`/`to`),
 * is `isoDay`'s YYYY-MM-DD (CONST-02).
 * All in the browser's time zone, 24-hour clock. An invalid input gives '' (CONST-02).
 */
type When = number | Date | null | undefined;

const pad = (n: number) => String(n).padStart(2, '0');
const toDate = (input: When): Date | null => {
  if (input === null || input === undefined) return null;
  const d = typeof input === 'number' ? new Date(input) : input;
  return Number.isNaN(d.getTime()) ? null : d;
};

/**
 * CONST-02: a date as data, YYYY-MM-DD: map keys, `<input type="date">` values, request parameters. Never
 * for display (that is `formatDay`). Also takes a string starting with a YYYY-MM-DD date.
 */
export const isoDay = (input: When | string): string => formatDate(input);

/** D/M/YYYY, the date shown; also takes a string starting with a YYYY-MM-DD date. '' when not a real day. */
export const formatDay = (input: When | string): string => shownDay(input);

/** HH:mm, or HH:mm:ss with `seconds`. */
export function formatTime(input: When, o: { seconds?: boolean } = {}): string {
  const d = toDate(input);
  if (!d) return '';
  const hm = `${pad(d.getHours())}:${pad(d.getMinutes())}`;
  return o.seconds ? `${hm}:${pad(d.getSeconds())}` : hm;
}

/** D/M/YYYY HH:mm (HH:mm:ss with `seconds`). */
export function formatDateTime(input: When, o: { seconds?: boolean } = {}): string {
  const d = toDate(input);
  return d ? `${formatDay(d)} ${formatTime(d, o)}` : '';
}

/** TICKET-63: the label of a date in a list: today the time, yesterday "Yesterday", else D/M/YYYY. */
export function listDate(input: When, now: number = Date.now()): string {
  const d = toDate(input);
  return d ? ticketDate(d.getTime(), now) : '';
}

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
  return isoDay(`${m[3]}-${m[2]}-${m[1]}`);
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

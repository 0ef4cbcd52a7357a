/**
 * Business hours and holidays: the pure rules both sides need (validation, and the time arithmetic the SLA
 * engine uses to count a target in business hours). Times of day are local to the account's IANA time zone;
 * every conversion goes through `Intl`, so daylight saving time and every zone the runtime knows are handled
 * without a time-zone library.
 */

/** One opening interval of a day, local time `HH:MM`; `end` may be `24:00` (the day's end). */
export interface BusinessInterval {
  start: string;
  end: string;
}

/** Seven days of intervals, index 0 = Sunday (as `Date#getUTCDay`), 6 = Saturday. */
export type WeekSchedule = BusinessInterval[][];

/** Day names in the schedule's order, for messages and screens. */
export const WEEKDAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;

/** Texts of the business-hours and SLA settings (one place, for translation later). */
export const BUSINESS_HOURS_STRINGS = {
  badTime: (v: string) => `"${v}" is not a time of day (HH:MM, 00:00 to 24:00).`,
  endBeforeStart: (day: string, start: string, end: string) =>
    `${day}: the end (${end}) must be after the start (${start}).`,
  overlap: (day: string, a: BusinessInterval, b: BusinessInterval) =>
    `${day}: ${a.start}-${a.end} overlaps ${b.start}-${b.end}.`,
  badZone: (tz: string) => `"${tz}" is not a known time zone (use an IANA name such as Europe/Berlin).`,
  badDate: (v: string) => `"${v}" is not a date (YYYY-MM-DD).`,
  duplicateDate: (v: string) => `${v} is listed twice.`,
  sevenDays: 'The schedule needs seven days, Sunday first.',
} as const;

const TIME = /^(?:([01]\d|2[0-3]):([0-5]\d)|(24):(00))$/;

/** Minutes since midnight of `HH:MM` (24:00 = 1440), or null when it is not a time of day. */
export function parseTimeOfDay(v: string): number | null {
  const m = TIME.exec(v);
  if (!m) return null;
  return m[3] ? 1440 : Number(m[1]) * 60 + Number(m[2]);
}

/** True when the runtime knows the IANA time zone. */
export function isTimeZone(tz: string): boolean {
  if (!tz || tz.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** True for a real calendar date written `YYYY-MM-DD`. */
export function isIsoDate(v: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === v;
}

/** The first thing wrong with a week's schedule, in words, or null when it is good. */
export function scheduleError(days: WeekSchedule): string | null {
  if (days.length !== 7) return BUSINESS_HOURS_STRINGS.sevenDays;
  for (let d = 0; d < 7; d++) {
    const name = WEEKDAY_NAMES[d]!;
    const parsed: { s: number; e: number; i: BusinessInterval }[] = [];
    for (const i of days[d]!) {
      const s = parseTimeOfDay(i.start);
      if (s === null || s === 1440) return BUSINESS_HOURS_STRINGS.badTime(i.start);
      const e = parseTimeOfDay(i.end);
      if (e === null) return BUSINESS_HOURS_STRINGS.badTime(i.end);
      if (e <= s) return BUSINESS_HOURS_STRINGS.endBeforeStart(name, i.start, i.end);
      parsed.push({ s, e, i });
    }
    parsed.sort((x, y) => x.s - y.s);
    for (let k = 1; k < parsed.length; k++)
      if (parsed[k]!.s < parsed[k - 1]!.e) return BUSINESS_HOURS_STRINGS.overlap(name, parsed[k - 1]!.i, parsed[k]!.i);
  }
  return null;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
const formatter = (tz: string) => {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(tz, f);
  }
  return f;
};

/** The wall-clock date and time in `tz` at the instant `ms`. */
export function localParts(ms: number, tz: string) {
  const p: Record<string, number> = {};
  for (const x of formatter(tz).formatToParts(new Date(ms))) if (x.type !== 'literal') p[x.type] = Number(x.value);
  return { year: p.year!, month: p.month!, day: p.day!, hour: p.hour! % 24, minute: p.minute!, second: p.second! };
}

/** How far `tz`'s wall clock is ahead of UTC at the instant `ms`, in ms. */
function offsetAt(ms: number, tz: string): number {
  const p = localParts(ms, tz);
  const wall = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return wall - (ms - (((ms % 1000) + 1000) % 1000));
}

/**
 * The instant at which `tz`'s wall clock shows the given date and minute of the day (1440 = the next
 * midnight). A time skipped by a DST change (spring forward) moves forward by the skipped hour; a time that
 * happens twice (fall back) takes one of the two.
 */
export function zonedTime(year: number, month: number, day: number, minuteOfDay: number, tz: string): number {
  const wall = Date.UTC(year, month - 1, day) + minuteOfDay * 60_000;
  const o1 = offsetAt(wall, tz);
  const o2 = offsetAt(wall - o1, tz);
  if (o1 === o2) return wall - o1;
  if (offsetAt(wall - o2, tz) === o2) return wall - o2;
  return wall - Math.min(o1, o2);
}

const pad = (n: number) => String(n).padStart(2, '0');

/** Looks this many days ahead at most (a schedule whose every open day is a holiday for years). */
const MAX_DAYS = 3 * 366;

/** The schedule's intervals in minutes of the day, each day's sorted by start. */
const parseDays = (schedule: WeekSchedule) =>
  schedule.map((d) =>
    d.map((i) => ({ s: parseTimeOfDay(i.start) ?? 0, e: parseTimeOfDay(i.end) ?? 0 })).sort((x, y) => x.s - y.s),
  );

/** The local calendar day `k` days after the one `start` falls on in `tz`: its date, weekday and `YYYY-MM-DD`. */
const localDay = (first: ReturnType<typeof localParts>, k: number) => {
  const date = new Date(Date.UTC(first.year, first.month - 1, first.day + k));
  const [y, m, d] = [date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate()];
  return { y, m, d, weekday: date.getUTCDay(), key: `${y}-${pad(m)}-${pad(d)}` };
};

/**
 * The instant `minutes` of business time after `start`: time counts only inside the schedule's intervals
 * (local to `tz`) on days that are not holidays (`YYYY-MM-DD` in `tz`). A schedule without any interval
 * counts calendar time. A start outside business hours begins counting at the next opening.
 */
export function addBusinessTime(
  start: number,
  minutes: number,
  schedule: WeekSchedule,
  holidays: readonly string[],
  tz: string,
): number {
  let left = Math.max(0, minutes) * 60_000;
  if (!schedule.some((d) => d.length > 0)) return start + left;
  const closed = new Set(holidays);
  const days = parseDays(schedule);
  const first = localParts(start, tz);
  for (let k = 0; k < MAX_DAYS; k++) {
    const { y, m, d, weekday, key } = localDay(first, k);
    if (closed.has(key)) continue;
    for (const i of days[weekday]!) {
      const from = Math.max(zonedTime(y, m, d, i.s, tz), start);
      const to = zonedTime(y, m, d, i.e, tz);
      if (to <= from) continue;
      if (left <= to - from) return from + left;
      left -= to - from;
    }
  }
  return start + Math.max(0, minutes) * 60_000;
}

/**
 * The business minutes between two instants (0 when `to` is not after `from`): the time inside the schedule's
 * intervals (local to `tz`) on days that are not holidays, the time `addBusinessTime` spends, so
 * `businessMinutesBetween(s, addBusinessTime(s, m, ...), ...)` is `m`. A schedule without any interval counts
 * calendar time. Not rounded: callers round as they show it.
 */
export function businessMinutesBetween(
  from: number,
  to: number,
  schedule: WeekSchedule,
  holidays: readonly string[],
  tz: string,
): number {
  if (!(to > from)) return 0;
  if (!schedule.some((d) => d.length > 0)) return (to - from) / 60_000;
  const closed = new Set(holidays);
  const days = parseDays(schedule);
  const first = localParts(from, tz);
  // Every local day from the one `from` falls on to the one `to` falls on (a day is 23 to 25 hours).
  const span = Math.ceil((to - from) / 86_400_000) + 2;
  let ms = 0;
  for (let k = 0; k <= span; k++) {
    const { y, m, d, weekday, key } = localDay(first, k);
    if (zonedTime(y, m, d, 0, tz) >= to) break;
    if (closed.has(key)) continue;
    for (const i of days[weekday]!) {
      const s = Math.max(zonedTime(y, m, d, i.s, tz), from);
      const e = Math.min(zonedTime(y, m, d, i.e, tz), to);
      if (e > s) ms += e - s;
    }
  }
  return ms / 60_000;
}

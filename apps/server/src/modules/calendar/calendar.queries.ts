import {
  APPOINTMENT_KEY,
  type CalendarAppointment,
  type CalendarEvent,
  type CalendarHoliday,
  parseAppointment,
  WORKSPACE_CHANNEL,
} from '@parley/contracts';
import type { DB } from '../../platform/db/db.js';
import { likeEscape } from '../../platform/db/db.js';

const DAY_MS = 86_400_000;
/** A day YYYY-MM-DD as the ms of its start (UTC). */
export const dayStart = (d: string) => Date.parse(`${d}T00:00:00Z`);
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The events of the account overlapping the range (ms, end excluded), optionally one contact's. */
export async function eventsIn(
  db: DB,
  accountId: number,
  range: { start: number; end: number },
  contactId?: number,
  eventId?: number,
): Promise<CalendarEvent[]> {
  let q = db
    .selectFrom('calendar_events as e')
    .leftJoin('contacts as c', (j) => j.onRef('c.id', '=', 'e.contact_id').onRef('c.account_id', '=', 'e.account_id'))
    .leftJoin('users as u', (j) => j.onRef('u.id', '=', 'e.created_by').onRef('u.account_id', '=', 'e.account_id'))
    .select([
      'e.id',
      'e.title',
      'e.starts_at',
      'e.ends_at',
      'e.all_day',
      'e.notes',
      'e.contact_id',
      'e.ticket_id',
      'c.name as contact_name',
      'u.name as by_name',
      'u.username',
    ])
    .where('e.account_id', '=', accountId);
  if (eventId !== undefined) q = q.where('e.id', '=', eventId);
  else q = q.where('e.starts_at', '<', range.end).where('e.ends_at', '>=', range.start);
  if (contactId !== undefined) q = q.where('e.contact_id', '=', contactId);
  const rows = await q.orderBy('e.starts_at').orderBy('e.id').limit(2000).execute();
  return rows.map((r) => ({
    id: Number(r.id),
    title: r.title,
    starts_at: Number(r.starts_at),
    ends_at: Number(r.ends_at),
    all_day: Number(r.all_day) === 1,
    notes: r.notes,
    contact_id: r.contact_id === null ? null : Number(r.contact_id),
    contact_name: r.contact_name ?? '',
    ticket_id: r.ticket_id === null ? null : Number(r.ticket_id),
    created_by: r.by_name || r.username || '',
  }));
}

/** The account's holidays (every department's list) on the days of the range. */
export async function holidaysIn(db: DB, accountId: number, from: string, to: string): Promise<CalendarHoliday[]> {
  const rows = await db
    .selectFrom('holidays as h')
    .leftJoin('departments as d', (j) =>
      j.onRef('d.id', '=', 'h.department_id').onRef('d.account_id', '=', 'h.account_id'),
    )
    .select(['h.date', 'h.name', 'd.name as department'])
    .where('h.account_id', '=', accountId)
    .where('h.date', '>=', from)
    .where('h.date', '<=', to)
    .orderBy('h.date')
    .execute();
  return rows.map((r) => ({ date: r.date, name: r.name, department: r.department ?? '' }));
}

/**
 * The appointments customers asked for (a ticket's Preferred Appointment Date) on the days of the range:
 * tickets whose `other` names one are read (at most 5,000, newest first) and their dates parsed here.
 */
export async function appointmentsIn(
  db: DB,
  accountId: number,
  from: string,
  to: string,
  contactId?: number,
): Promise<CalendarAppointment[]> {
  let q = db
    .selectFrom('tickets')
    .select(['id', 'ticket_number', 'title', 'name', 'other', 'contact_id'])
    .where('account_id', '=', accountId)
    .where('channel', '<>', WORKSPACE_CHANNEL)
    .where('other', 'like', `%${likeEscape(APPOINTMENT_KEY)}%`);
  if (contactId !== undefined) q = q.where('contact_id', '=', contactId);
  const rows = await q.orderBy('id', 'desc').limit(5000).execute();
  const out: CalendarAppointment[] = [];
  for (const r of rows) {
    let other: Record<string, unknown> = {};
    try {
      other = JSON.parse(r.other) as Record<string, unknown>;
    } catch {
      continue;
    }
    const d = parseAppointment(other[APPOINTMENT_KEY]);
    if (!d || Number.isNaN(d.getTime())) continue;
    // The day as written (parseAppointment reads it in local time): its local calendar day.
    const date = `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
    if (date < from || date > to) continue;
    out.push({
      ticket_id: Number(r.id),
      ticket_number: Number(r.ticket_number),
      title: r.title,
      name: r.name,
      date,
      contact_id: r.contact_id === null ? null : Number(r.contact_id),
    });
  }
  return out.sort((a, b) => a.date.localeCompare(b.date) || a.ticket_number - b.ticket_number);
}

/** Text for an iCalendar value: backslash, semicolon, comma and line breaks escaped (RFC 5545 3.3.11). */
const icsText = (s: string) =>
  s.replace(/\\/g, '\\\\').replace(/;/g, '\\;').replace(/,/g, '\\,').replace(/\r?\n/g, '\\n');
const icsTime = (ms: number) => `${new Date(ms).toISOString().replace(/[-:]/g, '').slice(0, 15)}Z`;
const icsDay = (d: string) => d.replace(/-/g, '');
/** Lines longer than 75 octets are folded (RFC 5545 3.1). */
const fold = (line: string) => {
  const parts: string[] = [];
  let rest = line;
  while (Buffer.byteLength(rest) > 75) {
    let cut = 74;
    while (Buffer.byteLength(rest.slice(0, cut)) > 74) cut--;
    parts.push(rest.slice(0, cut));
    rest = ` ${rest.slice(cut)}`;
  }
  parts.push(rest);
  return parts.join('\r\n');
};

/** The feed: the account's events and appointments from 90 days ago to a year ahead, as iCalendar. */
export async function icsFeed(db: DB, accountId: number, host: string, now = Date.now()): Promise<string> {
  const start = now - 90 * DAY_MS;
  const end = now + 366 * DAY_MS;
  const events = await eventsIn(db, accountId, { start, end });
  const appointments = await appointmentsIn(db, accountId, dayOf(start), dayOf(end));
  const lines = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//Parley//Calendar//EN',
    'CALSCALE:GREGORIAN',
    'X-WR-CALNAME:Parley',
  ];
  for (const e of events) {
    lines.push('BEGIN:VEVENT', `UID:event-${e.id}@${host}`, `DTSTAMP:${icsTime(now)}`);
    if (e.all_day)
      lines.push(
        `DTSTART;VALUE=DATE:${icsDay(dayOf(e.starts_at))}`,
        `DTEND;VALUE=DATE:${icsDay(dayOf(e.ends_at + DAY_MS))}`,
      );
    else lines.push(`DTSTART:${icsTime(e.starts_at)}`, `DTEND:${icsTime(e.ends_at)}`);
    lines.push(`SUMMARY:${icsText(e.title)}`);
    if (e.notes) lines.push(`DESCRIPTION:${icsText(e.notes)}`);
    lines.push('END:VEVENT');
  }
  for (const a of appointments) {
    const next = dayOf(dayStart(a.date) + DAY_MS);
    lines.push(
      'BEGIN:VEVENT',
      `UID:appointment-${a.ticket_id}@${host}`,
      `DTSTAMP:${icsTime(now)}`,
      `DTSTART;VALUE=DATE:${icsDay(a.date)}`,
      `DTEND;VALUE=DATE:${icsDay(next)}`,
      `SUMMARY:${icsText(`Appointment: ${a.name || a.title} (#${a.ticket_number})`)}`,
      'END:VEVENT',
    );
  }
  lines.push('END:VCALENDAR');
  return `${lines.map(fold).join('\r\n')}\r\n`;
}

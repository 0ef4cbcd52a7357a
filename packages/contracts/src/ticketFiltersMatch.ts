import { hasCallFilters } from './calls.js';
import { APPOINTMENT_KEY } from './ticketDisplay.js';
import type { AdvCondition } from './ticketFilters.js';
import {
  assigneeList,
  CHANNEL_ALIASES,
  TICKET_LIST_TYPES,
  type TicketListItem,
  type TicketListType,
  type TicketLoadQuery,
} from './tickets.js';

/**
 * Whether a ticket belongs in a list: `match`, `no`, or `unknown` when the list uses a filter that reads
 * more than the ticket itself (`automatic`, `automaticStatus`, `noAutomaticStatus`, `replyTAT` read the
 * assignments, the audit log and the messages) and every other condition holds.
 */
export type FilterMatch = 'match' | 'no' | 'unknown';

/** A list as the load call sees it: the status code (4 all, 0 Open and the open custom codes), type, query. */
export interface ListFilters {
  status: number;
  type: TicketListType;
  query: TicketLoadQuery;
  /** The account's open-type codes (`openCodes`), which the Open list (0) holds. */
  openCodes: readonly number[];
}

type Matchable = Pick<
  TicketListItem,
  | 'ticket_number'
  | 'title'
  | 'channel'
  | 'closed'
  | 'severity'
  | 'case_type'
  | 'label'
  | 'assignee'
  | 'department_id'
  | 'campaign_id'
  | 'created_at'
  | 'updated_at'
  | 'hasResponded'
  | 'name'
  | 'email'
  | 'phone'
  | 'other'
>;

/** The load-call filters the client cannot decide from a list item. */
export function serverOnlyFilters(q: TicketLoadQuery): boolean {
  return (
    q.automatic !== undefined ||
    q.automaticStatus === '1' ||
    q.noAutomaticStatus === '1' ||
    q.replyTAT !== undefined ||
    hasCallFilters(q)
  );
}

const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * TICKET-62: the appointment's day as the server's filters read it (`other ->> key` like '____-__-__%', then
 * its first 10 characters), null when the ticket has none they read (another spelling, a number).
 */
export function appointmentDay(other: Record<string, unknown>): string | null {
  const v = other[APPOINTMENT_KEY];
  if (typeof v !== 'string' || v.length < 10 || v[4] !== '-' || v[7] !== '-') return null;
  return v.slice(0, 10);
}

function advHolds(t: Matchable, c: AdvCondition): boolean {
  if (c.field === 'ticket_number') {
    const n = t.ticket_number;
    return c.op === 'is'
      ? n === c.value
      : c.op === 'is_not'
        ? n !== c.value
        : c.op === 'gt'
          ? n > c.value
          : n < c.value;
  }
  const col = String(t[c.field]).toLowerCase();
  const v = c.value.toLowerCase();
  switch (c.op) {
    case 'contains':
      return col.includes(v);
    case 'not_contains':
      return !col.includes(v);
    case 'starts_with':
      return col.startsWith(v);
    case 'is':
      return col === v;
    case 'is_not':
      return col !== v;
  }
}

/**
 * TICKET-30, TICKET-39, TICKET-43: the load call's filters applied to one ticket, as the server applies them
 * (`tickets.queries.ts` and `ticketFilters.ts`; the server's tests check both answer the same over a
 * fixture). The web uses it to decide whether a ticket that arrives live joins the list on screen.
 */
export function ticketMatchesList(t: Matchable, list: ListFilters, now: number = Date.now()): FilterMatch {
  const q = list.query;
  const checks: boolean[] = [];
  if (list.status !== 4) checks.push(list.status === 0 ? list.openCodes.includes(t.closed) : t.closed === list.status);
  const kind = TICKET_LIST_TYPES[list.type];
  if (kind.only) checks.push((kind.only as readonly string[]).includes(t.channel));
  if (kind.excluded.length) checks.push(!(kind.excluded as readonly string[]).includes(t.channel));
  if (q.campaignId !== undefined) checks.push(t.campaign_id === q.campaignId);
  if (q.agent) {
    const agent = q.agent.toLowerCase();
    checks.push(assigneeList(t.assignee).some((a) => a.toLowerCase() === agent));
  }
  if (q.assigned !== undefined) checks.push(assigneeList(t.assignee).length > 0 === (q.assigned === '1'));
  const time = q.received === 'created' ? t.created_at : t.updated_at;
  if (q.start !== undefined) checks.push(time >= q.start * 1000);
  if (q.end !== undefined) checks.push(time <= q.end * 1000 + 999);
  if (q.priorityFilter?.length) checks.push(q.priorityFilter.some((p) => (p === 'none' ? '' : p) === t.severity));
  if (q.channelFilter?.length) {
    const wanted = new Set(q.channelFilter);
    for (const [alias, code] of Object.entries(CHANNEL_ALIASES)) {
      if (wanted.has(alias)) wanted.add(code);
      if (wanted.has(code)) wanted.add(alias);
    }
    checks.push(wanted.has(t.channel));
  }
  if (q.labelFilter?.length) checks.push(q.labelFilter.some((l) => t.label.includes(l)));
  if (q.depFilter?.length) checks.push(t.department_id !== null && q.depFilter.includes(t.department_id));
  if (q.withReply !== undefined) checks.push(t.hasResponded === (q.withReply === '1'));
  const day = appointmentDay(t.other);
  const wantsAppt = q.apptStart !== undefined || q.apptEnd !== undefined || q.apptLessTwoDays === '1' || q.appt === '1';
  if (wantsAppt) checks.push(day !== null);
  else if (q.appt === '0') checks.push(day === null);
  if (day !== null) {
    if (q.apptStart !== undefined) checks.push(day >= utcDay(q.apptStart * 1000));
    if (q.apptEnd !== undefined) checks.push(day <= utcDay(q.apptEnd * 1000));
    if (q.apptLessTwoDays === '1') checks.push(day < utcDay(now + 2 * 86_400_000));
  }
  if (q.field && q.fieldValue !== undefined && q.fieldValue !== '') {
    if (q.field === 'ticket_number') {
      const n = Number(q.fieldValue);
      checks.push(Number.isSafeInteger(n) && t.ticket_number === n);
    } else checks.push(t[q.field].toLowerCase().includes(q.fieldValue.toLowerCase()));
  }
  for (const c of q.advFilter ?? []) checks.push(advHolds(t, c));
  if (checks.includes(false)) return 'no';
  return serverOnlyFilters(q) ? 'unknown' : 'match';
}

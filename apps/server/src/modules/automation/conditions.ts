import {
  AUTOMATION_CONDITION_NAMES,
  type AutomationCondition,
  addBusinessTime,
  ticketStatusName,
} from '@parley/contracts';
import type { BusinessSchedule } from '../sla/index.js';

/** What a rule's conditions are checked against: the ticket as it is now and what the event brought. */
export interface RuleSubject {
  channel: string;
  department_id: number | null;
  label: number[];
  priority: string;
  /** The ticket's status; on `status_changed`, the status that change set. */
  closed: number;
  title: string;
  name: string;
  email: string;
  phone: string;
  /** The customer's message on `customer_message`, else null (the ticket's title is read instead). */
  text: string | null;
  /** The rating on `csat_received`. */
  rating: number | null;
  /** On `livechat_queued`: the page the visitor started the chat from ('' for tickets). */
  page: string;
  /** When the event happened. */
  at: number;
  /** The business hours of the ticket's department (else the account's); null: none set, always open. */
  schedule: BusinessSchedule | null;
}

/** Inside business hours at `at`: the next business instant from it is itself (no hours set: always open). */
export const inBusinessHours = (at: number, s: BusinessSchedule | null) =>
  s === null || addBusinessTime(at, 0, s.days, s.holidays, s.timezone) === at;

const PRIORITY_NAMES: Record<string, string> = { H: 'High', M: 'Medium', L: 'Low', '': 'None' };

/** One condition in words, for the run log and the dry run ("Channel is WHATSAPP"). */
export function describeCondition(c: AutomationCondition): string {
  const name = AUTOMATION_CONDITION_NAMES[c.field];
  switch (c.field) {
    case 'channel':
      return `${name} is ${c.in.join(' or ')}`;
    case 'department':
      return `${name} is ${c.in.map((d) => (d === 0 ? 'none' : `#${d}`)).join(' or ')}`;
    case 'labels':
      return `${name}: ${c.has} of #${c.labels.join(', #')}`;
    case 'priority':
      return `${name} is ${c.in.map((p) => PRIORITY_NAMES[p]).join(' or ')}`;
    case 'status':
      return `${name} is ${c.in.map((s) => ticketStatusName(s)).join(' or ')}`;
    case 'text':
      return `${name} "${c.contains}"`;
    case 'customer':
      return `${name} ${c.attribute} ${c.op.replace('_', ' ')}${c.op === 'contains' || c.op === 'equals' ? ` "${c.value}"` : ''}`;
    case 'business_hours':
      return c.within ? 'Inside business hours' : 'Outside business hours';
    case 'rating':
      return `${name} ${c.at_most}`;
    case 'page':
      return `${name} "${c.contains}"`;
  }
}

function holds(c: AutomationCondition, s: RuleSubject): boolean {
  switch (c.field) {
    case 'channel':
      return (c.in as string[]).includes(s.channel);
    case 'department':
      return c.in.includes(s.department_id ?? 0);
    case 'labels': {
      const has = (l: number) => s.label.includes(l);
      return c.has === 'any' ? c.labels.some(has) : c.has === 'all' ? c.labels.every(has) : !c.labels.some(has);
    }
    case 'priority':
      return (c.in as string[]).includes(s.priority);
    case 'status':
      return c.in.includes(s.closed);
    case 'text':
      return (s.text ?? s.title).toLowerCase().includes(c.contains.toLowerCase());
    case 'customer': {
      const v = s[c.attribute].trim().toLowerCase();
      const want = c.value.trim().toLowerCase();
      if (c.op === 'is_set') return v !== '';
      if (c.op === 'is_empty') return v === '';
      return c.op === 'equals' ? v === want : want !== '' && v.includes(want);
    }
    case 'business_hours':
      return inBusinessHours(s.at, s.schedule) === c.within;
    case 'rating':
      return s.rating !== null && s.rating <= c.at_most;
    case 'page':
      return s.page.toLowerCase().includes(c.contains.toLowerCase());
  }
}

/** Whether every condition holds (no conditions: always), with each condition in words when they do. */
export function matchRule(conditions: AutomationCondition[], s: RuleSubject): { ok: boolean; matched: string[] } {
  for (const c of conditions) if (!holds(c, s)) return { ok: false, matched: [] };
  return { ok: true, matched: conditions.map(describeCondition) };
}

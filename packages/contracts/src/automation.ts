import { z } from 'zod';
import { CHANNELS, type Channel } from './constants.js';
import { MACRO_ACTION_SCHEMAS } from './replies.js';
import { TICKET_PRIORITIES } from './tickets.js';

/**
 * Automation rules (beyond the spec; docs/automation.md): per account, managed by admins. When an event
 * happens and every condition holds, the actions run, in the rule's order, rules in the account's order.
 */

/** The events a rule can wait for. */
export const AUTOMATION_EVENTS = [
  'ticket_created',
  'customer_message',
  'status_changed',
  'sla_warning',
  'sla_breach',
  'csat_received',
  'livechat_queued',
] as const;
export type AutomationEvent = (typeof AUTOMATION_EVENTS)[number];

export const AUTOMATION_EVENT_NAMES: Record<AutomationEvent, string> = {
  ticket_created: 'Ticket created',
  customer_message: 'Message received from a customer',
  status_changed: 'Status changed',
  sla_warning: 'SLA warning',
  sla_breach: 'SLA breach',
  csat_received: 'CSAT rating received',
  livechat_queued: 'Live chat queued',
};

const channelCodes = Object.keys(CHANNELS) as [Channel, ...Channel[]];
const ids = z.array(z.number().int().positive()).min(1).max(100);

/**
 * One condition; every condition of a rule must hold. Objects are strict: an unknown field is a 400 naming
 * it, so a typo never saves a rule that matches more than meant.
 */
export const AutomationCondition = z.discriminatedUnion('field', [
  z.strictObject({ field: z.literal('channel'), in: z.array(z.enum(channelCodes)).min(1).max(channelCodes.length) }),
  /** The ticket's department; 0 stands for "no department". */
  z.strictObject({ field: z.literal('department'), in: z.array(z.number().int().min(0)).min(1).max(100) }),
  z.strictObject({ field: z.literal('labels'), has: z.enum(['any', 'all', 'none']), labels: ids }),
  z.strictObject({ field: z.literal('priority'), in: z.array(z.enum(TICKET_PRIORITIES)).min(1).max(4) }),
  z.strictObject({ field: z.literal('status'), in: z.array(z.number().int().min(0).max(999_999)).min(1).max(50) }),
  /** The customer's message (on `customer_message`), else the ticket's title; plain, case-insensitive. */
  z.strictObject({
    field: z.literal('text'),
    contains: z.string().trim().min(1, 'The text to look for is required.').max(200),
  }),
  z.strictObject({
    field: z.literal('customer'),
    attribute: z.enum(['name', 'email', 'phone']),
    op: z.enum(['contains', 'equals', 'is_set', 'is_empty']),
    value: z.string().trim().max(200).default(''),
  }),
  /** Inside (true) or outside (false) the business hours of the ticket's department (else the account's). */
  z.strictObject({ field: z.literal('business_hours'), within: z.boolean() }),
  /** On `csat_received`: the rating is at most this (1-5). */
  z.strictObject({ field: z.literal('rating'), at_most: z.number().int().min(1).max(5) }),
  /** On `livechat_queued`: the address of the page the visitor started the chat from contains this. */
  z.strictObject({
    field: z.literal('page'),
    contains: z.string().trim().min(1, 'The page address to look for is required.').max(200),
  }),
]);
export type AutomationCondition = z.infer<typeof AutomationCondition>;
export type AutomationConditionField = AutomationCondition['field'];

export const AUTOMATION_CONDITION_NAMES: Record<AutomationConditionField, string> = {
  channel: 'Channel',
  department: 'Department',
  labels: 'Labels',
  priority: 'Priority',
  status: 'Status',
  text: 'Text contains',
  customer: 'Customer',
  business_hours: 'Business hours',
  rating: 'CSAT rating at most',
  page: 'Page address contains',
};

/**
 * One action: the macros' actions (reply, status, labels, assignee, priority; the same code applies them),
 * and: a shared canned reply by id, a department (a team), automatic assignment by the round-robin or
 * least-loaded rule among the department's members, an internal note on the ticket, a notification to users,
 * and a call of one of the account's outgoing webhooks (event `automation.rule`, signed like every delivery).
 */
const [reply, status, addLabels, removeLabels, assignee, priority] = MACRO_ACTION_SCHEMAS;
export const AutomationAction = z.discriminatedUnion('type', [
  reply.strict(),
  status.strict(),
  addLabels.strict(),
  removeLabels.strict(),
  assignee.strict(),
  priority.strict(),
  z.strictObject({ type: z.literal('canned_reply'), reply_id: z.number().int().positive() }),
  z.strictObject({ type: z.literal('department'), department_id: z.number().int().positive() }),
  z.strictObject({ type: z.literal('auto_assign'), strategy: z.enum(['round_robin', 'least_loaded']) }),
  z.strictObject({ type: z.literal('note'), text: z.string().trim().min(1, 'The note text is required.').max(5000) }),
  z.strictObject({
    type: z.literal('notify'),
    users: z.array(z.string().min(1).max(100)).min(1, 'Choose at least one user to notify.').max(50),
    text: z.string().trim().min(1, 'The notification text is required.').max(500),
  }),
  z.strictObject({ type: z.literal('webhook'), webhook_id: z.number().int().positive() }),
  /** A notification to every active member of a department. */
  z.strictObject({
    type: z.literal('notify_department'),
    department_id: z.number().int().positive(),
    text: z.string().trim().min(1, 'The notification text is required.').max(500),
  }),
]);
export type AutomationAction = z.infer<typeof AutomationAction>;
export type AutomationActionType = AutomationAction['type'];

export const AUTOMATION_ACTION_NAMES: Record<AutomationActionType, string> = {
  reply: 'Send a reply',
  canned_reply: 'Send a canned reply',
  status: 'Set status',
  add_labels: 'Add labels',
  remove_labels: 'Remove labels',
  assignee: 'Assign to agents',
  department: 'Assign to a department',
  auto_assign: 'Assign automatically',
  priority: 'Set priority',
  note: 'Add a note',
  notify: 'Notify users',
  webhook: 'Call a webhook',
  notify_department: 'Notify a department',
};

/**
 * What each event allows. A queued live chat has no ticket yet: its rules read the chat (its department, the
 * visitor's details and first message, the page it was started from, business hours) and act on the chat
 * (notify, call a webhook, move it to a department), never on a ticket. The page condition is only about a
 * chat, the rating only about a CSAT rating. Anything else is refused when the rule is saved (400).
 */
const TICKET_CONDITIONS: readonly AutomationConditionField[] = [
  'channel',
  'department',
  'labels',
  'priority',
  'status',
  'text',
  'customer',
  'business_hours',
];
const TICKET_ACTIONS = (Object.keys(AUTOMATION_ACTION_NAMES) as AutomationActionType[]).filter(
  (t) => t !== 'notify_department',
);
export const AUTOMATION_EVENT_CONDITIONS: Record<AutomationEvent, readonly AutomationConditionField[]> = {
  ticket_created: TICKET_CONDITIONS,
  customer_message: TICKET_CONDITIONS,
  status_changed: TICKET_CONDITIONS,
  sla_warning: TICKET_CONDITIONS,
  sla_breach: TICKET_CONDITIONS,
  csat_received: [...TICKET_CONDITIONS, 'rating'],
  livechat_queued: ['department', 'text', 'customer', 'business_hours', 'page'],
};
export const AUTOMATION_EVENT_ACTIONS: Record<AutomationEvent, readonly AutomationActionType[]> = {
  ticket_created: [...TICKET_ACTIONS, 'notify_department'],
  customer_message: [...TICKET_ACTIONS, 'notify_department'],
  status_changed: [...TICKET_ACTIONS, 'notify_department'],
  sla_warning: [...TICKET_ACTIONS, 'notify_department'],
  sla_breach: [...TICKET_ACTIONS, 'notify_department'],
  csat_received: [...TICKET_ACTIONS, 'notify_department'],
  livechat_queued: ['notify', 'notify_department', 'webhook', 'department'],
};

export const AutomationRuleInput = z.strictObject({
  name: z.string().trim().min(1, 'A name is required.').max(100),
  event: z.enum(AUTOMATION_EVENTS),
  enabled: z.boolean().default(true),
  conditions: z.array(AutomationCondition).max(20).default([]),
  actions: z.array(AutomationAction).min(1, 'A rule needs at least one action.').max(20),
});
export type AutomationRuleInput = z.input<typeof AutomationRuleInput>;
export type AutomationRuleParsed = z.infer<typeof AutomationRuleInput>;

export const AutomationRule = z.object({
  id: z.number(),
  name: z.string(),
  event: z.enum(AUTOMATION_EVENTS),
  enabled: z.boolean(),
  position: z.number(),
  conditions: z.array(AutomationCondition),
  actions: z.array(AutomationAction),
  updated_at: z.number(),
});
export type AutomationRule = z.infer<typeof AutomationRule>;

export const AutomationRuleAnswer = z.object({ result: z.literal('success'), data: AutomationRule });
export const AutomationRuleListAnswer = z.object({ result: z.literal('success'), data: z.array(AutomationRule) });
export const AutomationIdParams = z.object({ id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) });

/** The new order of the account's rules: every rule id once. */
export const AutomationOrderInput = z.strictObject({ ids: z.array(z.number().int().positive()).max(500) });

/** One run of a rule: what matched and what it did, or why it stopped. */
export const AutomationRun = z.object({
  id: z.number(),
  rule_id: z.number(),
  rule_name: z.string(),
  event: z.string(),
  ticket_id: z.number(),
  ticket_number: z.number(),
  /** On "Live chat queued": the chat (its ticket_id and ticket_number are 0); else null. */
  livechat_id: z.number().nullable(),
  outcome: z.enum(['applied', 'no_change', 'stopped']),
  matched: z.array(z.string()),
  did: z.array(z.string()),
  reason: z.string(),
  created_at: z.number(),
});
export type AutomationRun = z.infer<typeof AutomationRun>;
export const AutomationRunsQuery = z.object({
  rule_id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional(),
});
export const AutomationRunsAnswer = z.object({ result: z.literal('success'), data: z.array(AutomationRun) });

/** A dry run: the recent tickets (newest first) a rule, saved or not, would have matched. */
export const AutomationDryRunAnswer = z.object({
  result: z.literal('success'),
  data: z.object({
    checked: z.number(),
    tickets: z.array(
      z.object({
        id: z.number(),
        ticket_number: z.number(),
        title: z.string(),
        channel: z.string(),
        matched: z.array(z.string()),
      }),
    ),
    /** On "Live chat queued": the recent live chats (newest first) it would have matched; else empty. */
    chats: z.array(
      z.object({
        id: z.number(),
        name: z.string(),
        message: z.string(),
        queued_at: z.number(),
        matched: z.array(z.string()),
      }),
    ),
  }),
});
export type AutomationDryRunAnswer = z.infer<typeof AutomationDryRunAnswer>;

/** How many recent tickets a dry run looks at. */
export const AUTOMATION_DRY_RUN_TICKETS = 200;
/** How many times a rule may be re-triggered by its own change in one chain of events (the loop guard). */
export const AUTOMATION_MAX_RETRIGGER = 1;
/** The longest chain of rule runs one outside event may start. */
export const AUTOMATION_MAX_CHAIN = 10;

export const AUTOMATION_STRINGS = {
  title: 'Automation',
  ruleNotFound: 'Rule not found.',
  badOrder: 'Send every rule of the account once, in the new order.',
  unknownDepartment: (id: number) => `Unknown department: ${id}.`,
  unknownCannedReply: (id: number) => `Unknown shared canned reply: ${id}.`,
  unknownWebhook: (id: number) => `Unknown webhook: ${id}.`,
  webhookOff: 'not sent: the webhook is switched off or removed',
  ratingOnlyOnCsat: 'The rating condition applies only to the event "CSAT rating received".',
  conditionNotFor: (condition: string, event: string) =>
    `The condition "${condition}" does not apply to the event "${event}".`,
  actionNotFor: (action: string, event: string) =>
    event === 'Live chat queued'
      ? `The action "${action}" does not apply to the event "Live chat queued": a queued live chat has no ticket yet.`
      : `The action "${action}" does not apply to the event "${event}".`,
  chatTaken: 'no change: the live chat is no longer in the queue',
  dryRunNoChats: 'No recent live chat would have matched.',
  loopStopped: (name: string) =>
    `Stopped: the rule "${name}" was triggered again by its own change; it runs at most once more per chain of changes.`,
  chainStopped: `Stopped: more than ${AUTOMATION_MAX_CHAIN} rule runs in one chain of changes.`,
  replyNotSent: (n: number) =>
    `No reply on ticket #${n}: an e-mail ticket with no mailbox or customer address, or an ended live chat.`,
  noAgentFree: 'Nobody could take the ticket (no agent online with room).',
  noRules: 'No rules yet. Add one to act on events as they happen.',
  dryRunNone: 'No recent ticket would have matched.',
} as const;

import { z } from 'zod';
import { planEntitlements } from './plans.js';
import { TicketListItem } from './tickets.js';

const id = z.coerce.number().int().positive();

/**
 * TICKET-22, TICKET-29 (design): `POST /api/ticket/status {id, status}` sets a ticket's status:
 * a default code 0 to 3, or one of the account's custom statuses (5 and up; the server checks it exists,
 * else "Unknown status."). 4 means "all" in filters and is never a ticket's status.
 */
export const TicketStatusInput = z.object({
  id,
  status: z.coerce
    .number()
    .int()
    .min(0)
    .max(999_999)
    .refine((n) => n !== 4, 'Unknown status.'),
});
export type TicketStatusInput = z.infer<typeof TicketStatusInput>;

/** Manual assignment: usernames of active users of the caller's account; `[]` unassigns. */
export const TicketAssignInput = z.object({ id, assignee: z.array(z.string().min(1).max(100)).max(50) });
export type TicketAssignInput = z.infer<typeof TicketAssignInput>;

/** The ticket's labels: ids of the account's labels that are not removed; `[]` clears them. */
export const TicketLabelsInput = z.object({ id, label: z.array(id).max(100) });
export type TicketLabelsInput = z.infer<typeof TicketLabelsInput>;

/** The ticket's department: one of the account's departments, or null for none. */
export const TicketDepartmentInput = z.object({ id, department_id: id.nullable() });
export type TicketDepartmentInput = z.infer<typeof TicketDepartmentInput>;

/** TICKET-64: `POST /api/ticket/campaign {id, campaign_id}`: one of the account's campaigns, or null for none. */
export const TicketCampaignInput = z.object({ id, campaign_id: id.nullable() });
export type TicketCampaignInput = z.infer<typeof TicketCampaignInput>;

/**
 * Automatic assignment strategies:
 * - `round_robin`: the candidate assigned least recently (never assigned first), ties by username.
 * - `least_loaded`: the candidate with the fewest open (status 0 or 1) tickets assigned, ties by least
 *   recently assigned, then username.
 */
export const ASSIGN_STRATEGIES = ['round_robin', 'least_loaded'] as const;
export type AssignStrategy = (typeof ASSIGN_STRATEGIES)[number];
/** How an assignment was made, as `ticket_assignments.how` records it. */
export const ASSIGN_HOW = ['manual', ...ASSIGN_STRATEGIES] as const;
export type AssignHow = (typeof ASSIGN_HOW)[number];

/** `POST /api/ticket/autoassign {id, strategy}` (admin): runs automatic assignment on one ticket now. */
export const TicketAutoAssignInput = z.object({ id, strategy: z.enum(ASSIGN_STRATEGIES) });
export type TicketAutoAssignInput = z.infer<typeof TicketAutoAssignInput>;

/** The answer of the status, assign, labels, department and campaign calls: the ticket as the caller now sees it. */
export const TicketChangeAnswer = z.object({ result: z.literal('success'), data: TicketListItem });
/** `assignee` is null (and `data` the unchanged ticket) when no agent could take it. */
export const TicketAutoAssignAnswer = z.object({
  result: z.literal('success'),
  assignee: z.string().nullable(),
  data: TicketListItem,
});

/**
 * PLAN-20..23: concurrent open tickets one agent may hold before automatic assignment skips
 * them. Starter 5, Basic 10, Pro 15, Enterprise unlimited (null). Design: a trial gets Starter's 5; the
 * console plan (99) and unknown plans get 0 (it has no conversations). Manual assignment is never limited.
 */
export const concurrentLimit = (plan: number): number | null => planEntitlements(plan).concurrentChats;

export const ASSIGN_STRINGS = {
  unknownAssignee: (username: string) => `Unknown or inactive user: ${username}.`,
  unknownLabel: (labelId: number) => `Unknown label: ${labelId}.`,
  unknownDepartment: 'No such department.',
  unknownCampaign: 'No such campaign.',
} as const;

/**
 * TICKET-27, TICKET-29 (design): the text of the system messages (type `system`, sender `server`) that a
 * change posts into the ticket's messages. `actor` is the display name of who made the change.
 */
export const TICKET_SYSTEM_MESSAGES = {
  status: (actor: string, statusName: string) => `${actor} set the status to ${statusName}.`,
  assigned: (actor: string, names: readonly string[]) =>
    names.length === 0 ? `${actor} unassigned the ticket.` : `${actor} assigned the ticket to ${names.join(', ')}.`,
  autoAssigned: (username: string, strategy: AssignStrategy) =>
    `The ticket was assigned to ${username} automatically (${strategy === 'round_robin' ? 'round robin' : 'least loaded'}).`,
  labels: (actor: string, names: readonly string[]) =>
    names.length === 0 ? `${actor} removed all labels.` : `${actor} set the labels to ${names.join(', ')}.`,
  department: (actor: string, name: string | null) =>
    name === null ? `${actor} removed the department.` : `${actor} moved the ticket to ${name}.`,
  campaign: (actor: string, name: string | null) =>
    name === null ? `${actor} removed the campaign.` : `${actor} set the campaign to ${name}.`,
} as const;

import { z } from 'zod';
import { TICKET_PRIORITIES } from './tickets.js';

/**
 * An agent's "my work" (beyond the spec): the list's views, the Home queue, bulk actions and merging.
 * Decided here, summarised in docs/tickets.md.
 */

/** The views every agent has in the ticket list: tickets assigned to me, to nobody, or all of them. */
export const TICKET_VIEWS = ['mine', 'unassigned', 'all'] as const;
export type TicketView = (typeof TICKET_VIEWS)[number];
export const TICKET_VIEW_LABELS: Record<TicketView, string> = { mine: 'Mine', unassigned: 'Unassigned', all: 'All' };
/** A view from the address (`?view=`); anything else is All. */
export const parseTicketView = (v: string | null | undefined): TicketView =>
  v === 'mine' || v === 'unassigned' ? v : 'all';

/** `GET /api/ticket/views?filter=<status>`: the number of tickets in each view under that status filter. */
export const TicketViewsQuery = z.object({ filter: z.string().max(20).default('0') });
export const TicketViewsAnswer = z.object({
  result: z.literal('success'),
  data: z.object({ mine: z.number(), unassigned: z.number(), all: z.number() }),
});
export type TicketViewCounts = z.infer<typeof TicketViewsAnswer>['data'];

/** A ticket of the Home queue whose SLA is at risk (warning time reached, not answered yet). */
export const QueueRisk = z.object({
  id: z.number(),
  ticket_number: z.number(),
  title: z.string(),
  due_at: z.number(),
  /** The SLA time has passed already. */
  breached: z.boolean(),
  /** Which target: the wait for an answer, or the policy's resolution time (the earlier when both are). */
  target: z.enum(['response', 'resolution']),
});
export type QueueRisk = z.infer<typeof QueueRisk>;
/** `GET /api/ticket/queue`: my open and waiting (Pending) tickets, and my tickets at SLA risk, due soonest first. */
export const TicketQueueAnswer = z.object({
  result: z.literal('success'),
  data: z.object({ open: z.number(), waiting: z.number(), atRisk: z.array(QueueRisk) }),
});
export type TicketQueue = z.infer<typeof TicketQueueAnswer>['data'];
/** At most this many tickets at risk are listed on Home. */
export const QUEUE_RISK_LIMIT = 20;

/** At most this many tickets in one bulk request. */
export const BULK_MAX = 500;

const id = z.coerce.number().int().positive();
const ids = z.array(id).min(1).max(BULK_MAX);

/**
 * `POST /api/ticket/bulk`: one action on many tickets in one transaction. The tickets are `ids`, or every
 * ticket matching `filter` (the load call's status and query: "select all N matching"), at most 500.
 */
export const BULK_ACTIONS = [
  'assign',
  'addLabels',
  'removeLabels',
  'status',
  'priority',
  'department',
  'merge',
] as const;
export type BulkAction = (typeof BULK_ACTIONS)[number];
const target = {
  ids: ids.optional(),
  filter: z
    .object({
      status: z.string().max(20),
      query: z.record(z.string().max(40), z.string().max(2000)).default({}),
    })
    .strict()
    .optional(),
};
export const TicketBulkInput = z
  .discriminatedUnion('action', [
    z.object({ ...target, action: z.literal('assign'), value: z.array(z.string().min(1).max(100)).max(50) }),
    z.object({ ...target, action: z.literal('addLabels'), value: z.array(id).min(1).max(100) }),
    z.object({ ...target, action: z.literal('removeLabels'), value: z.array(id).min(1).max(100) }),
    z.object({
      ...target,
      action: z.literal('status'),
      value: z.coerce
        .number()
        .int()
        .min(0)
        .max(999_999)
        .refine((n) => n !== 4, 'Unknown status.'),
    }),
    z.object({ ...target, action: z.literal('priority'), value: z.enum(TICKET_PRIORITIES) }),
    z.object({ ...target, action: z.literal('department'), value: id.nullable() }),
    /** `value` is the primary ticket; the others are merged into it. */
    z.object({ ...target, action: z.literal('merge'), value: id }),
  ])
  .superRefine((b, ctx) => {
    if ((b.ids === undefined) === (b.filter === undefined))
      ctx.addIssue({ code: 'custom', path: ['ids'], message: WORK_STRINGS.idsOrFilter });
  });
export type TicketBulkInput = z.infer<typeof TicketBulkInput>;
export const TicketBulkAnswer = z.object({
  result: z.literal('success'),
  /** The tickets the action was applied to. */
  ids: z.array(z.number()),
  /** How many of them actually changed (the others already had the value). */
  changed: z.number(),
});
export type TicketBulkAnswer = z.infer<typeof TicketBulkAnswer>;

export const WORK_STRINGS = {
  idsOrFilter: 'Send either ids or filter.',
  tooMany: (n: number) => `Too many tickets: ${n} selected, at most ${BULK_MAX} at once.`,
  nothingMatches: 'No tickets match.',
  mergeItself: 'A ticket cannot be merged into itself.',
  mergeNeedsOthers: 'Choose at least one other ticket to merge into the primary ticket.',
  mergeChannel: 'Live chats and Workspace chats cannot be merged.',
  /** The system note in the primary ticket. */
  mergedInto: (actor: string, numbers: readonly number[]) =>
    `${actor} merged ${numbers.map((n) => `#${n}`).join(', ')} into this ticket.`,
  /** The system note in a ticket merged into another: the pointer to the primary. */
  mergedAway: (actor: string, primary: number) => `${actor} merged this ticket into #${primary}.`,
  labelsAdded: (actor: string, names: readonly string[]) => `${actor} added the labels ${names.join(', ')}.`,
  labelsRemoved: (actor: string, names: readonly string[]) => `${actor} removed the labels ${names.join(', ')}.`,
} as const;

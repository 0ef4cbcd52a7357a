import { z } from 'zod';
import { USER_TYPES } from './constants.js';

/**
 * The supervisory board (`/supervisory`, `GET /api/supervisory`, design: docs/supervisory.md): a live view of
 * the account's agents, the live-chat queue and the tickets whose SLA is at risk.
 */

/** A ticket is at risk from its warning time or this long before it is due, whichever comes first. */
export const SUPERVISORY_RISK_WINDOW_MS = 30 * 60_000;
/** Most at-risk tickets listed (the total is always counted). */
export const SUPERVISORY_RISK_LIMIT = 50;
/** How long the board waits after a socket event before it reads the snapshot again (events come in bursts). */
export const SUPERVISORY_REFRESH_DEBOUNCE_MS = 300;

/** Admins, and users whose permission list holds view_report (supervisors get it by default). */
export const canViewReports = (u: { type?: string; permission?: readonly string[] | null }): boolean =>
  u.type === 'admin' || Boolean(u.permission?.includes('view_report'));

/** One agent's row: the status shown (second_status over status, OFFLINE without a connection) and its load. */
export const SupervisoryAgent = z.object({
  userId: z.number(),
  username: z.string(),
  name: z.string(),
  photo: z.string().nullable(),
  type: z.enum(USER_TYPES),
  /** ONLINE, OFFLINE, a built-in status (AWAY, BUSY...) or the name of a custom status. */
  status: z.string(),
  /** The reason given with the status ('' when none). */
  reason: z.string(),
  /** When the agent's current status began (server clock, ms): the start of its open status period. */
  since: z.number(),
  /** Live chats the agent is running (the seats the plan's concurrent limit counts). */
  chats: z.number(),
  /** Tickets assigned to the agent that are not Resolved or Closed (live chats and Workspace chats left out). */
  tickets: z.number(),
});
export type SupervisoryAgent = z.infer<typeof SupervisoryAgent>;

/** Visitors waiting in one department (`departmentId` null: the chats started without one). */
export const SupervisoryQueueGroup = z.object({
  departmentId: z.number().nullable(),
  department: z.string(),
  waiting: z.number(),
  oldestQueuedAt: z.number(),
});
export type SupervisoryQueueGroup = z.infer<typeof SupervisoryQueueGroup>;

export const SupervisoryQueue = z.object({
  waiting: z.number(),
  /** When the visitor who has waited longest joined the queue; null when nobody waits. */
  oldestQueuedAt: z.number().nullable(),
  /** One group a department with visitors waiting, the longest wait first. */
  departments: z.array(SupervisoryQueueGroup),
});
export type SupervisoryQueue = z.infer<typeof SupervisoryQueue>;

/** A ticket whose running SLA clock is past its warning, due within the window, or breached. */
export const SupervisoryRisk = z.object({
  id: z.number(),
  ticketNumber: z.number(),
  title: z.string(),
  /** The assignees' display names (a username when the user is gone); empty when nobody is assigned. */
  assignees: z.array(z.string()),
  /** Which clock: the wait for an answer, or the resolution. */
  target: z.enum(['response', 'resolution']),
  dueAt: z.number(),
  breached: z.boolean(),
});
export type SupervisoryRisk = z.infer<typeof SupervisoryRisk>;

export const SupervisorySnapshot = z.object({
  /** The server's clock when read, so the board can count durations against it. */
  now: z.number(),
  /** The plan's concurrent live chats per agent; null when unlimited. */
  chatLimit: z.number().nullable(),
  agents: z.array(SupervisoryAgent),
  queue: SupervisoryQueue,
  /** Due soonest first (the breached ones, most overdue, first); at most SUPERVISORY_RISK_LIMIT. */
  risks: z.array(SupervisoryRisk),
  risksTotal: z.number(),
  /**
   * The next moment a running clock enters the risk window (its warning time, or the window before its due
   * time), when nothing else would tell the board; null when none will. The board reads again then.
   */
  nextChangeAt: z.number().nullable(),
});
export type SupervisorySnapshot = z.infer<typeof SupervisorySnapshot>;

export const SupervisoryAnswer = z.object({ result: z.literal('success'), data: SupervisorySnapshot });
export type SupervisoryAnswer = z.infer<typeof SupervisoryAnswer>;

export const SUPERVISORY_STRINGS = {
  title: 'Supervisory',
  notAllowed: 'Only admins and users with the view_report permission can open the supervisory board.',
  failed: 'The board could not be loaded.',
  retry: 'Try again',
  live: 'Live',
  offline: 'Reconnecting…',
  agents: 'Agents',
  noAgents: 'No agents in this workspace yet.',
  agent: 'Agent',
  status: 'Status',
  inStatus: 'For',
  chats: 'Live chats',
  tickets: 'Open tickets',
  unlimited: 'no limit',
  atLimit: 'At the limit',
  queues: 'Queues',
  waiting: 'Waiting',
  longestWait: 'Longest wait',
  department: 'Department',
  noDepartment: 'No department',
  removedDepartment: 'Removed department',
  nobodyWaiting: 'No visitors waiting.',
  risks: 'Tickets at SLA risk',
  noRisks: 'No ticket is close to its SLA.',
  ticket: 'Ticket',
  title_: 'Title',
  assignee: 'Assignee',
  due: 'Due',
  unassigned: 'Unassigned',
  breached: 'Breached',
  atRisk: 'At risk',
  response: 'Answer',
  resolution: 'Resolution',
  more: (shown: number, total: number) => `${shown} of ${total} shown, due soonest first.`,
  present: (n: number, total: number) => `${n} of ${total} present`,
} as const;

import { z } from 'zod';
import { AGENT_STATUSES, type AgentStatus } from './constants.js';

/** STATUS-01: the labels of the built-in statuses. */
export const AGENT_STATUS_LABELS: Record<AgentStatus, string> = {
  ONLINE: 'Online',
  AWAY: 'Away',
  BUSY: 'Busy',
  MEAL_BREAK: 'Meal Break',
  WASHROOM: 'Washroom',
  PRAYER: 'Prayer',
  OFFLINE: 'Offline',
};

/** STATUS-07 */
export const STATUS_DURATION_NOTE = 'Your status duration will be recorded';

/** Statuses that cannot be chosen without a reason (STATUS-09). */
export const REASON_REQUIRED: readonly string[] = ['AWAY', 'BUSY'];

/**
 * `POST /api/online_status/update`. `status` is a built-in status or the name of one of the
 * account's custom statuses (the server checks which). AWAY and BUSY need a reason, and so does a custom
 * status marked `needs_reason`.
 */
export const UpdateStatusInput = z
  .object({
    status: z.string({ error: 'Status is required.' }).trim().min(1, 'Status is required.').max(40),
    reason: z.string().trim().max(200).optional().default(''),
  })
  .refine((v) => !(REASON_REQUIRED.includes(v.status) && v.reason === ''), {
    message: 'A reason is required for Away and Busy.',
    path: ['reason'],
  });
export type UpdateStatusInput = z.infer<typeof UpdateStatusInput>;

/**
 * The agent's presence. `status` is ONLINE or OFFLINE (is any socket of the agent connected); the status
 * the agent chose, when it is not Online, is `second_status` (a built-in status or a custom one).
 * STATUS-03: second_status overrides status when non-empty; an agent with no connection is Offline.
 */
export function effectiveStatus(s: { status: string; second_status: string }): string {
  if (s.status === 'OFFLINE') return 'OFFLINE';
  return s.second_status || s.status || 'ONLINE';
}

/** Label of a status value, custom statuses shown by their own name. */
export const statusLabel = (value: string) => AGENT_STATUS_LABELS[value as AgentStatus] ?? value;

/** Payload of the `statusUpdated` socket event, sent to everyone in the account. */
export const StatusUpdated = z.object({
  userId: z.number(),
  username: z.string(),
  /** ONLINE or OFFLINE. */
  status: z.string(),
  second_status: z.string(),
  reason: z.string(),
  since: z.number(),
});
export type StatusUpdated = z.infer<typeof StatusUpdated>;

/** STATUS-05, STATUS-23: one row of the online list (`GET /status/get`) and of `GET /api/status/me/get`. */
export const OnlineUser = z.object({
  userId: z.number(),
  username: z.string(),
  name: z.string(),
  photo: z.string().nullable(),
  status: z.string(),
  second_status: z.string(),
  reason: z.string(),
  /** When the current status began (ms). */
  ts: z.number(),
  /** When the agent's last connection closed (ms); null while connected or never seen. */
  last_seen: z.number().nullable(),
  client_id: z.number(),
});
export type OnlineUser = z.infer<typeof OnlineUser>;
export const OnlineListAnswer = z.object({ result: z.literal('success'), data: z.array(OnlineUser) });

/** STATUS-17, STATUS-18: the account's custom statuses. */
export const CustomStatus = z.object({ id: z.number(), name: z.string(), needs_reason: z.boolean() });
export type CustomStatus = z.infer<typeof CustomStatus>;
export const CustomStatusListAnswer = z.object({ result: z.literal('success'), data: z.array(CustomStatus) });
export const CreateCustomStatusInput = z.object({
  name: z
    .string({ error: 'Name is required.' })
    .trim()
    .min(1, 'Name is required.')
    .max(40, 'Name is too long.')
    .refine((n) => !(AGENT_STATUSES as readonly string[]).includes(n.toUpperCase().replace(/ /g, '_')), {
      message: 'That name is a built-in status.',
    }),
  needs_reason: z.boolean().optional().default(false),
});

/** STATUS-19 */
export const CUSTOM_STATUS_FETCH_FAILED = 'Failed to fetch custom status. Reload page to fix it.';
/** STATUS-22: the online-user panel refreshes this often while open and focused. */
export const ONLINE_PANEL_REFRESH_MS = 60_000;
/** The user left out of the online list (STATUS-21). */
export const SHADOW_ADMIN = 'shadow_admin';

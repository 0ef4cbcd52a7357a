import { z } from 'zod';
import { AGENT_STATUSES } from './constants.js';

/** DECISIONS 6: `POST /api/online_status/update`. AWAY and BUSY need a reason. */
export const UpdateStatusInput = z
  .object({
    status: z.enum(AGENT_STATUSES),
    reason: z.string().trim().max(200).optional().default(''),
  })
  .refine((v) => !((v.status === 'AWAY' || v.status === 'BUSY') && v.reason === ''), {
    message: 'A reason is required for Away and Busy.',
    path: ['reason'],
  });
export type UpdateStatusInput = z.infer<typeof UpdateStatusInput>;

/** Payload of the `statusUpdated` socket event, sent to everyone in the account. */
export const StatusUpdated = z.object({
  userId: z.number(),
  username: z.string(),
  status: z.string(),
  reason: z.string(),
  since: z.number(),
});
export type StatusUpdated = z.infer<typeof StatusUpdated>;

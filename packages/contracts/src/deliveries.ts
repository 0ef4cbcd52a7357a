import { z } from 'zod';

/**
 * The failed-deliveries list (Settings -> Channels): the replies that could not be sent, on e-mail through a
 * mailbox and on the messaging channels, newest first, each with the provider's or mail server's words and a
 * Retry. See docs/channels.md.
 */
export const DELIVERIES_PAGE = 50;

export const DELIVERY_STRINGS = {
  title: 'Failed deliveries',
  intro: 'Replies that could not be sent, newest first. Retry sends one again; it leaves this list once it goes.',
  none: 'No failed deliveries.',
  retry: 'Retry',
  retried: 'Sending again.',
  ticket: 'Ticket',
  reason: 'Reason',
  when: 'When',
  more: 'Show more',
  email: 'E-mail',
} as const;

export const FailedDelivery = z.object({
  /** The message's id. */
  id: z.number(),
  ticketId: z.number(),
  ticketNumber: z.number(),
  title: z.string(),
  channel: z.string(),
  /** email: a mailbox reply (retried by `/api/ticket/message/reply/retry`); channel: a messaging reply. */
  kind: z.enum(['email', 'channel']),
  /** The start of the reply's text. */
  text: z.string(),
  error: z.string(),
  /** Who wrote it: their display name as it was sent. */
  sender: z.string(),
  /** When it was written (ms). */
  at: z.number(),
});
export type FailedDelivery = z.infer<typeof FailedDelivery>;

/** `GET /api/deliveries/failed?before=<message id>`: one page, newest first; `before` pages back. */
export const FailedDeliveriesQuery = z.object({ before: z.coerce.number().int().positive().optional() });
export const FailedDeliveriesAnswer = z.object({
  result: z.literal('success'),
  data: z.array(FailedDelivery),
  /** Whether an older page exists. */
  more: z.boolean(),
});
export type FailedDeliveriesAnswer = z.infer<typeof FailedDeliveriesAnswer>;

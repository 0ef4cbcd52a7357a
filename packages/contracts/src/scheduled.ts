import { z } from 'zod';
import { isEmailAddress, MESSAGE_MAX_TEXT, MESSAGE_STRINGS } from './messages.js';

/**
 * Scheduled messages: an agent writes a reply now and has it sent later, on the ticket's own channel (chat,
 * a messaging channel, or e-mail through the ticket's mailbox). It can be changed or cancelled until it goes,
 * and it goes once, whatever the number of servers. See docs/messages.md.
 */

/** How far ahead a message may be scheduled. */
export const SCHEDULE_MAX_AHEAD_MS = 366 * 24 * 3600_000;

export const SCHEDULED_STRINGS = {
  inPast: 'Choose a time in the future.',
  tooFar: 'A message can be scheduled up to a year ahead.',
  empty: 'Write the message first.',
  notFound: 'Scheduled message not found.',
  notPending: 'This message was already sent or cancelled.',
  notYours: 'Only its author or an admin can change a scheduled message.',
  /** An e-mail ticket without a mailbox replies through the server's SMTP_URL at once, never later. */
  noMailbox:
    'A reply on this ticket cannot be scheduled: only tickets that came in through a mailbox can send e-mail later.',
  liveChat: 'A live chat reply cannot be scheduled: the visitor is there now, or gone.',
  cancelled: 'Scheduled message cancelled.',
  notEmail: 'Recipients and a subject go only with a reply on an e-mail ticket.',
  noRecipient: 'Give at least one address to send the e-mail to.',
  scheduledFor: (when: string) => `Scheduled for ${when}`,
} as const;

export const SCHEDULED_STATES = ['pending', 'sent', 'cancelled', 'failed'] as const;
export type ScheduledState = (typeof SCHEDULED_STATES)[number];

const text = z.string().trim().min(1, SCHEDULED_STRINGS.empty).max(MESSAGE_MAX_TEXT);
const sendAt = z.number({ error: SCHEDULED_STRINGS.inPast }).int().positive();

const address = z
  .string()
  .trim()
  .max(254)
  .refine(isEmailAddress, { error: (i) => MESSAGE_STRINGS.badEmail(String(i.input)) });
/** A scheduled e-mail reply's recipients and subject, as the e-mail composer has them. */
export const ScheduledEmail = z.object({
  to: z.array(address).min(1, SCHEDULED_STRINGS.noRecipient).max(50),
  cc: z.array(address).max(50).default([]),
  subject: z.string().trim().max(500).default(''),
});
export type ScheduledEmail = z.infer<typeof ScheduledEmail>;

/** `POST /api/ticket/scheduled`. `email` only on an e-mail ticket (else the ticket's customer, "Re: title"). */
export const ScheduleInput = z.object({
  ticket_id: z.coerce.number().int().positive(),
  message: text,
  /** Milliseconds since the epoch. */
  send_at: sendAt,
  email: ScheduledEmail.optional(),
});
export type ScheduleInput = z.infer<typeof ScheduleInput>;
/** `PUT /api/ticket/scheduled/:id`. */
export const RescheduleInput = z.object({ message: text, send_at: sendAt });
export type RescheduleInput = z.infer<typeof RescheduleInput>;

export const ScheduledMessage = z.object({
  id: z.number(),
  ticketId: z.number(),
  sender: z.string(),
  senderName: z.string(),
  message: z.string(),
  sendAt: z.number(),
  state: z.enum(SCHEDULED_STATES),
  /** Why it could not be sent (the ticket gone, its mailbox removed...). */
  error: z.string().nullable(),
  /** The message it became, once sent. */
  messageId: z.number().nullable(),
  /** An e-mail reply's recipients and subject, when they were given. */
  email: ScheduledEmail.nullable(),
});
export type ScheduledMessage = z.infer<typeof ScheduledMessage>;
export const ScheduledAnswer = z.object({ result: z.literal('success'), data: ScheduledMessage });
export type ScheduledAnswer = z.infer<typeof ScheduledAnswer>;
export const ScheduledListAnswer = z.object({ result: z.literal('success'), data: z.array(ScheduledMessage) });
export type ScheduledListAnswer = z.infer<typeof ScheduledListAnswer>;

import { z } from 'zod';

/**
 * Notes on a ticket as a whole (beside the notes on single messages, MSG-16): the team's own remarks in the
 * ticket's side panel. Staff only: never a message, never sent to the customer or a visitor. `@username`
 * mentions notify like a message note's.
 */
export const TICKET_NOTE_MAX = 5_000;
const id = z.coerce
  .number()
  .int()
  .positive()
  .max(2 ** 53 - 1);

export const TicketNote = z.object({
  id: z.number(),
  ticketId: z.number(),
  /** The author's username, and their display name (the username when they have none). */
  sender: z.string(),
  senderName: z.string(),
  text: z.string(),
  /** Milliseconds. */
  created_at: z.number(),
  updated_at: z.number(),
});
export type TicketNote = z.infer<typeof TicketNote>;

export const TicketNotesParams = z.object({ ticketId: id });
export const TicketNotesAnswer = z.object({ result: z.literal('success'), data: z.array(TicketNote) });
export const AddTicketNoteInput = z.object({
  ticketId: id,
  text: z
    .string({ error: 'Write the note first.' })
    .trim()
    .min(1, 'Write the note first.')
    .max(TICKET_NOTE_MAX, `A note may be at most ${TICKET_NOTE_MAX} characters.`),
});
export const DeleteTicketNoteInput = z.object({ id });
export const TicketNoteAnswer = z.object({ result: z.literal('success'), data: TicketNote });

export const TICKET_NOTE_STRINGS = {
  notFound: 'Note not found.',
  notYours: 'Only the author or an admin may delete this note.',
} as const;

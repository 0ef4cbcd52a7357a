import { z } from 'zod';
import { VISITOR_STRINGS } from './visitorStrings.js';

/**
 * PLAN-21 (design): a live chat's transcript. An agent e-mails it (to the visitor's address, or another) or
 * downloads it as a text file from the chat; the visitor, once the chat has ended, may have it sent to the
 * e-mail address given in the chat form, once per chat. Basic and up.
 */
export const TRANSCRIPT_STRINGS = {
  notOnPlan: 'Chat transcripts come with the Basic plan and up: upgrade on the Plans page.',
  email: 'Email transcript',
  download: 'Download transcript',
  /** The visitor's button on the rating view. */
  send: VISITOR_STRINGS.sendTranscript,
  sendHint: VISITOR_STRINGS.transcriptHint,
  sendTo: 'Send to',
  send2: 'Send',
  sent: VISITOR_STRINGS.transcriptSent,
  alreadySent: 'The transcript of this chat was already sent.',
  noEmail: 'No e-mail address to send the transcript to.',
  noMail: 'Outgoing e-mail is not set up on this server.',
  notEnded: 'The transcript can be sent once the chat has ended.',
  notSent: (words: string) => `The transcript could not be sent: ${words}`,
  subject: (company: string) => (company ? `Your live chat with ${company}` : 'Your live chat'),
  heading: 'Live chat transcript',
} as const;

const email = z.string().trim().max(200).email('Enter a valid e-mail address.');

/** `POST /api/livechat/transcript/email`: the chat's ticket, and where to (the visitor's address if none). */
export const TranscriptEmailInput = z.object({ id: z.number().int().positive(), to: email.optional() });
/** `GET /api/livechat/transcript/:ticketId`: the text file. */
export const TranscriptParams = z.object({
  ticketId: z.coerce
    .number()
    .int()
    .positive()
    .max(2 ** 53 - 1),
});
/** `POST /api/livechat/transcript/visitor`: the visitor's own chat, to the address of its form. */
export const VisitorTranscriptInput = z.object({
  _token: z.string().min(1).max(200),
  token: z.string().min(1).max(100),
});
export const TranscriptSentAnswer = z.object({ result: z.literal('success'), to: z.string() });
export type TranscriptSentAnswer = z.infer<typeof TranscriptSentAnswer>;

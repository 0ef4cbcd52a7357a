/**
 * Texts of the system notifications and pushes this module designs (the spec gives none). Titles of the
 * notifications shared with the web live in `@parley/contracts` (`SLA_STRINGS`); kept here, in one place,
 * so they can be translated later.
 */

/** Longest quoted text in a notification or push body. */
export const QUOTE_MAX = 140;

/** A note or message as one line of plain text, cut to `QUOTE_MAX` characters. */
export function quote(text: string, max = QUOTE_MAX): string {
  const plain = text
    .replace(/<[^>]*>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return plain.length > max ? `${plain.slice(0, max - 1)}…` : plain;
}

export const NOTIFY_STRINGS = {
  /** "Mentioned in a note" (System tab). */
  mentionedBody: (by: string, text: string) => `${by} mentioned you in a note: "${quote(text)}"`,
  /** "A chat transferred to you" (System tab). */
  transferredBody: (by: string, title: string) => `${by} transferred the chat "${title}" to you.`,
  /** Web Push for a new ticket. */
  newTicketTitle: (ticketNumber: number) => `New ticket: #${ticketNumber}`,
  newTicketBody: (title: string, from: string) => (from ? `${from}: ${quote(title)}` : quote(title)),
  /** Web Push for a customer's message in one of my tickets. */
  newMessageTitle: (from: string, ticketNumber: number) => `${from} (#${ticketNumber})`,
  newMessageBody: (text: string, files: string[]) =>
    quote(text) || (files.length > 0 ? `Sent a file: ${files.join(', ')}` : ''),
} as const;

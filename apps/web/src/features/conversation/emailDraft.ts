import {
  firstBadEmail,
  isEmailAddress,
  MESSAGE_STRINGS,
  SCHEDULED_STRINGS,
  type ScheduledEmail,
} from '@parley/contracts';

/**
 * The e-mail reply as the composer holds it (MSG-26, design): "To" lists addresses separated by commas or
 * semicolons, the first being the main address (`email`, the customer's) and the rest `toEmail`; "Cc"
 * lists copies; the body is plain text, sent as HTML (`text/html`) so e-mail clients keep its lines.
 */
export interface EmailDraft {
  ticketId: number;
  to: string;
  cc: string;
  subject: string;
  body: string;
  /** The `queue-` id: the same one again when a failed send is retried. */
  clientId: string;
  replyId: number | null;
}

export const splitAddresses = (s: string) =>
  s
    .split(/[,;]/)
    .map((a) => a.trim())
    .filter(Boolean);

const escapeHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Plain text as HTML: paragraphs at blank lines, line breaks kept, everything escaped. */
export const textToHtml = (text: string) =>
  text
    .trim()
    .split(/\n{2,}/)
    .map((p) => `<p>${escapeHtml(p).replace(/\n/g, '<br>')}</p>`)
    .join('');

/**
 * MSG-28, MSG-29, MSG-30: the fields of the reply call, or the check's message ("Please check the email
 * address. {address}") for the first address that fails (cc, then toEmail, then the main address).
 */
export function replyFields(d: EmailDraft): { error: string } | { fields: Record<string, string> } {
  const [email = '', ...toEmail] = splitAddresses(d.to);
  const cc = splitAddresses(d.cc);
  const bad = firstBadEmail({ type: 'text/html', email, toEmail, cc });
  if (bad !== null) return { error: MESSAGE_STRINGS.badEmail(bad) };
  return {
    fields: {
      ticket_id: String(d.ticketId),
      type: 'text/html',
      message: textToHtml(d.body),
      email,
      toEmail: toEmail.join(','),
      cc: cc.join(','),
      title: d.subject.trim(),
      client_id: d.clientId,
      ...(d.replyId ? { reply_id: String(d.replyId) } : {}),
    },
  };
}

/**
 * The recipients and subject of an e-mail reply scheduled for later, checked as a reply now is (MSG-28):
 * the first bad address is the error.
 */
export function scheduledEmail(
  d: Pick<EmailDraft, 'to' | 'cc' | 'subject'>,
): { error: string } | { email: ScheduledEmail } {
  const to = splitAddresses(d.to);
  const cc = splitAddresses(d.cc);
  const bad = [...to, ...cc].find((a) => !isEmailAddress(a));
  if (bad !== undefined) return { error: MESSAGE_STRINGS.badEmail(bad) };
  if (to.length === 0) return { error: SCHEDULED_STRINGS.noRecipient };
  return { email: { to, cc, subject: d.subject.trim() } };
}

import { isEmailAddress, type MessageFile, type ReplyInput } from '@parley/contracts';
import type { DB } from '../../platform/db/db.js';
import type { Mailer } from '../../platform/mail.js';
import type { Trx } from '../../platform/outbox/index.js';
import { keyOf, uploadPath } from './uploads.js';

/** Where an e-mail reply goes, as stored with the message (`email_meta`) and used for the mail itself. */
export interface ReplyEnvelope {
  to: string[];
  cc: string[];
  subject: string;
  email2?: string;
  template?: string;
  /** Whether an SMTP server took it (false: no SMTP_URL). */
  sent?: boolean;
}

/** MSG-26 (design): a reply is an e-mail when it is HTML or names any address. */
export const isEmailReply = (input: ReplyInput) =>
  input.type === 'text/html' || input.toEmail.length > 0 || input.cc.length > 0 || !!input.email;

/**
 * MSG-26 (design): the recipients are the main address (`email`, the customer's) then `toEmail`; `cc`
 * copies; the subject is `title`, else "Re: " and the ticket's title; `email2`, when it is an address, is
 * where the customer's answer should go (Reply-To: the mailbox the ticket came in through).
 */
export function envelopeOf(input: ReplyInput, ticketTitle: string): ReplyEnvelope {
  return {
    to: [...(input.email ? [input.email.trim()] : []), ...input.toEmail.map((a) => a.trim())],
    cc: input.cc.map((a) => a.trim()),
    subject: input.title?.trim() || `Re: ${ticketTitle}`,
    email2: input.email2,
    template: input.template,
  };
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", nbsp: ' ' };
/** The plain-text part of an HTML reply: line breaks kept, tags dropped, the common entities decoded. */
export function htmlToText(html: string): string {
  return html
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, '')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(p|div|li|h[1-6]|tr)>/gi, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (_, e: string) => ENTITIES[e] ?? '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** The raw words of an SMTP failure: the server's response line when it gave one, else the error. */
export const smtpResponse = (err: unknown) => {
  const e = err as { response?: unknown; message?: unknown };
  return String(e?.response || e?.message || err);
};

/** Sends an e-mail reply with its attachments read from the account's stored files. */
export async function mailReply(
  mailer: Mailer,
  o: {
    dataDir: string;
    accountId: number;
    envelope: ReplyEnvelope;
    type: string;
    message: string;
    files: MessageFile[];
  },
): Promise<void> {
  const html = o.type === 'text/html';
  await mailer.send({
    to: o.envelope.to,
    cc: o.envelope.cc,
    subject: o.envelope.subject,
    ...(o.envelope.email2 && isEmailAddress(o.envelope.email2) ? { replyTo: o.envelope.email2 } : {}),
    text: html ? htmlToText(o.message) : o.message,
    ...(html ? { html: o.message } : {}),
    attachments: o.files.flatMap((f) => {
      const key = keyOf(f.file);
      return key
        ? [{ filename: f.fileName, path: uploadPath(o.dataDir, o.accountId, key), contentType: f.fileType }]
        : [];
    }),
  });
}

/**
 * The mailbox a ticket's e-mail replies leave from: the one it came in through, while it exists (its id), or
 * null: the reply goes the installation's way (`SMTP_URL`).
 */
export async function mailboxOf(q: DB | Trx, accountId: number, ticketId: number): Promise<number | null> {
  const row = await q
    .selectFrom('tickets as t')
    .innerJoin('mailboxes as m', (j) => j.onRef('m.id', '=', 't.mailbox_id').onRef('m.account_id', '=', 't.account_id'))
    .select('m.id')
    .where('t.account_id', '=', accountId)
    .where('t.id', '=', ticketId)
    .executeTakeFirst();
  return row ? Number(row.id) : null;
}

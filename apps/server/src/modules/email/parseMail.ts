import { createHash } from 'node:crypto';
import { EMAIL_STRINGS, MESSAGE_MAX_HTML } from '@parley/contracts';
import { type AddressObject, type HeaderValue, simpleParser } from 'mailparser';

/** What the store needs of one inbound mail. */
export interface InboundMail {
  /** Its Message-ID without the brackets; a hash of its bytes when it has none. */
  messageId: string;
  /** The ids it answers, nearest first: In-Reply-To, then References from the last to the first. */
  parents: string[];
  /** Its References as sent (oldest first), carried on by our reply. */
  references?: string[];
  subject: string;
  from: { name: string; address: string } | null;
  to: string[];
  cc: string[];
  /** The body as HTML (the text part made HTML when there is none), kept as sent: sanitized at display. */
  html: string;
  /** An automatic mail: it never makes a ticket and never makes one wait for the team. */
  noise: 'auto_reply' | 'bounce' | null;
  attachments: { name: string; content: Buffer }[];
}

const ID = /<([^<>\s]{1,900})>/g;
/** The ids in a header value (`<a@b> <c@d>`); a bare id without brackets counts as one. */
export function idsIn(value: string | string[] | undefined): string[] {
  const all = (Array.isArray(value) ? value : value ? [value] : []).join(' ');
  const found = [...all.matchAll(ID)].map((m) => m[1]!);
  if (found.length > 0) return found;
  const bare = all.trim();
  return bare && !/\s/.test(bare) && bare.length <= 900 ? [bare] : [];
}

const text = (v: HeaderValue | undefined) =>
  typeof v === 'string' ? v : v && typeof v === 'object' && 'value' in v ? String(v.value) : '';

/**
 * Auto-replies (RFC 3834 Auto-Submitted other than `no`, X-Autoreply, X-Autorespond, Precedence bulk, junk or
 * auto_reply) and bounces (a multipart/report, the DSN format).
 */
export function noiseOf(headers: Map<string, HeaderValue>): InboundMail['noise'] {
  if (/^multipart\/report$/i.test(text(headers.get('content-type')).trim())) return 'bounce';
  const submitted = text(headers.get('auto-submitted')).trim().toLowerCase();
  if (submitted && submitted !== 'no') return 'auto_reply';
  if (headers.has('x-autoreply') || headers.has('x-autorespond')) return 'auto_reply';
  if (['bulk', 'junk', 'auto_reply'].includes(text(headers.get('precedence')).trim().toLowerCase()))
    return 'auto_reply';
  return null;
}

const addresses = (o: AddressObject | AddressObject[] | undefined) =>
  (Array.isArray(o) ? o : o ? [o] : []).flatMap((a) => a.value.flatMap((v) => (v.address ? [v.address] : [])));

/** Parses a raw mail (mailparser's `simpleParser`: MIME, charsets, encoded words, attachments). */
export async function parseMail(source: Buffer): Promise<InboundMail> {
  const parsed = await simpleParser(source, { skipImageLinks: true });
  const sender = parsed.from?.value.find((v) => v.address);
  const html = parsed.html || parsed.textAsHtml || '';
  const references = idsIn(parsed.references);
  return {
    messageId: idsIn(parsed.messageId)[0] ?? `sha256.${createHash('sha256').update(source).digest('hex')}@parley`,
    parents: [...new Set([...idsIn(parsed.inReplyTo), ...[...references].reverse()])],
    references,
    subject: (parsed.subject ?? '').trim(),
    from: sender?.address ? { name: sender.name ?? '', address: sender.address } : null,
    to: addresses(parsed.to),
    cc: addresses(parsed.cc),
    html: html.length > MESSAGE_MAX_HTML ? html.slice(0, MESSAGE_MAX_HTML) : html,
    noise: noiseOf(parsed.headers),
    attachments: parsed.attachments.map((a, i) => ({
      name: a.filename || `attachment-${i + 1}`,
      content: a.content,
    })),
  };
}

/** The ticket number a subject names with a `[#N]` tag, or null. */
export function subjectTicketNumber(subject: string): number | null {
  const m = /\[#(\d{1,9})\]/.exec(subject);
  return m ? Number(m[1]) : null;
}

/** A ticket's title from a mail's subject. */
export const titleOf = (subject: string) => subject.slice(0, 500) || EMAIL_STRINGS.noSubject;

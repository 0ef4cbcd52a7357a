import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { Readable } from 'node:stream';
import { setImmediate as turn } from 'node:timers/promises';
import { EMAIL_STRINGS, isEmailAddress, MESSAGE_MAX_HTML } from '@parley/contracts';
import type * as MailParser from 'mailparser';
import type { AddressObject, HeaderValue } from 'mailparser';

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
  /**
   * An automatic mail, or one sent from one of the account's own mailboxes (a loop between two of them):
   * it never makes a ticket and never makes one wait for the team.
   */
  noise: 'auto_reply' | 'bounce' | 'own_mailbox' | null;
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

/**
 * NUL and the other C0 controls but tab, line feed and carriage return: header garbage carries them, and
 * Postgres refuses NUL in text, which would hold the mail (and the mailbox behind it) up for good.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters it removes
const CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;
const clean = (s: string) => s.replace(CONTROLS, '');

const addresses = (o: AddressObject | AddressObject[] | undefined) =>
  (Array.isArray(o) ? o : o ? [o] : []).flatMap((a) =>
    a.value.flatMap((v) => (v.address && isEmailAddress(clean(v.address)) ? [clean(v.address)] : [])),
  );

/** Mails above this are fed to the parser in slices, a turn of the event loop apart. */
const SLICED_ABOVE = 1024 * 1024;
const SLICE = 64 * 1024;

/**
 * A big mail as a stream of slices with a turn of the event loop between them: the parser's work (line
 * splitting, base64 and charset decoding) is then spread over many short turns instead of one long one, so
 * a 30 MB mail does not hold up the other mailboxes, the relay and the HTTP server while it is read.
 */
function sliced(source: Buffer): Readable {
  return Readable.from(
    (async function* () {
      for (let at = 0; at < source.length; at += SLICE) {
        if (at > 0) await turn();
        yield source.subarray(at, at + SLICE);
      }
    })(),
    { objectMode: false },
  );
}

const escapeHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * The body of a mail the MIME parser found nothing in (a multipart whose boundary never comes, a body
 * before any part): its raw text after the header, as UTF-8 where it is, else Latin-1, as HTML text. Only
 * when nothing else was read and there is something printable there.
 */
function rawBodyHtml(source: Buffer): string {
  let at = source.indexOf('\r\n\r\n');
  let skip = 4;
  if (at < 0) {
    at = source.indexOf('\n\n');
    skip = 2;
  }
  if (at < 0) return '';
  const bytes = source.subarray(at + skip, at + skip + MESSAGE_MAX_HTML);
  const utf8 = bytes.toString('utf8');
  const body = clean(utf8.includes('\ufffd') ? bytes.toString('latin1') : utf8).trim();
  if (!body) return '';
  return `<pre>${escapeHtml(body)}</pre>`;
}

/** Parses a raw mail (mailparser's `simpleParser`: MIME, charsets, encoded words, attachments). */
export async function parseMail(source: Buffer): Promise<InboundMail> {
  // Loaded with the first mail: mailparser adds ~30 MB to a server without mailboxes.
  const { simpleParser } = createRequire(import.meta.url)('mailparser') as typeof MailParser;
  const parsed = await simpleParser(source.length > SLICED_ABOVE ? sliced(source) : source, {
    skipImageLinks: true,
  });
  const sender = parsed.from?.value.find((v) => v.address && isEmailAddress(clean(v.address)));
  let html = clean(parsed.html || parsed.textAsHtml || '');
  if (!html.trim() && parsed.attachments.length === 0) html = rawBodyHtml(source);
  const references = idsIn(parsed.references).map(clean).filter(Boolean);
  const messageId = clean(idsIn(parsed.messageId)[0] ?? '');
  return {
    messageId: messageId || `sha256.${createHash('sha256').update(source).digest('hex')}@parley`,
    parents: [...new Set([...idsIn(parsed.inReplyTo).map(clean), ...[...references].reverse()])].filter(Boolean),
    references,
    subject: clean(parsed.subject ?? '').trim(),
    from: sender?.address ? { name: clean(sender.name ?? '').trim(), address: clean(sender.address) } : null,
    to: addresses(parsed.to),
    cc: addresses(parsed.cc),
    html: html.length > MESSAGE_MAX_HTML ? html.slice(0, MESSAGE_MAX_HTML) : html,
    noise: noiseOf(parsed.headers),
    attachments: parsed.attachments.map((a, i) => ({
      name: clean(a.filename || '') || `attachment-${i + 1}`,
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

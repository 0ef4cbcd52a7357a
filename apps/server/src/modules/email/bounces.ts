import { EMAIL_STRINGS } from '@parley/contracts';
import { htmlToText } from '../messages/index.js';
import type { InboundMail } from './parseMail.js';

/** What a bounce says: the Message-IDs it names (ours among them, maybe) and why the mail was refused. */
export interface Bounce {
  ids: string[];
  reason: string;
}

/** The longest reason kept: a server's words, not its whole transcript. */
const REASON_MAX = 1000;
const SCAN_MAX = 65_536;
const HEADER_ID = /^Message-ID:[ \t]*<([^<>\s]{1,900})>/gim;

/** Entities htmlToText leaves (mailparser's HTML of a text part writes `&apos;`, numeric ones too). */
const decodeEntities = (t: string) =>
  t
    .replace(/&apos;/g, "'")
    .replace(/&#x([0-9a-f]{1,6});/gi, (_, h: string) =>
      String.fromCodePoint(Math.min(Number.parseInt(h, 16), 0x10ffff)),
    )
    .replace(/&#(\d{1,7});/g, (_, d: string) => String.fromCodePoint(Math.min(Number(d), 0x10ffff)));

/** The bounce senders of MTAs: a bounce that is not a DSN still comes from one of these. */
const BOUNCE_SENDER = /^(mailer-daemon|postmaster)@/i;

/**
 * A bounce of a mail we sent, read from the parsed mail: a DSN (multipart/report: mailparser joins its
 * message/delivery-status part to the text) or a mail from MAILER-DAEMON / postmaster. Null for anything
 * else, and for a DSN that reports no failure (`Action: delayed` or `delivered`, a 2.x.x or 4.x.x Status):
 * such a mail stays noise.
 * - ids: its In-Reply-To and References, and every `Message-ID:` header of the original it carries (an
 *   attached message/rfc822 or text/rfc822-headers part, or quoted in its text).
 * - reason: the Diagnostic-Code (without its `smtp;` type), else `Status 5.x.x`, then " — " and the first line
 *   of the human part; the first line alone when there is neither.
 */
export function bounceOf(mail: InboundMail): Bounce | null {
  if (mail.noise !== 'bounce' && !BOUNCE_SENDER.test(mail.from?.address ?? '')) return null;
  const text = decodeEntities(htmlToText(mail.html.slice(0, 4 * SCAN_MAX))).slice(0, SCAN_MAX);
  // Header fields folded over lines read as one line.
  const fields = text.replace(/\r?\n[ \t]+/g, ' ');
  const action = /^Action:[ \t]*([A-Za-z]+)/im.exec(fields)?.[1]?.toLowerCase();
  const status = /^Status:[ \t]*([245]\.\d{1,3}\.\d{1,3})/im.exec(fields)?.[1];
  if (action ? action !== 'failed' : status !== undefined && !status.startsWith('5')) return null;
  const diagnostic = /^Diagnostic-Code:[ \t]*(?:[\w-]+;[ \t]*)?(.+)$/im.exec(fields)?.[1]?.trim();
  const firstLine = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .find((l) => l !== '');
  const reason =
    [diagnostic ?? (status ? `Status ${status}` : undefined), firstLine].filter(Boolean).join(' \u2014 ') ||
    EMAIL_STRINGS.bounceNoReason;
  const quoted = [text, ...mail.attachments.map((a) => a.content.subarray(0, SCAN_MAX).toString('latin1'))];
  const ids = [...mail.parents, ...quoted.flatMap((q) => [...q.matchAll(HEADER_ID)].map((m) => m[1]!))];
  return { ids: [...new Set(ids)].slice(0, 100), reason: reason.slice(0, REASON_MAX) };
}

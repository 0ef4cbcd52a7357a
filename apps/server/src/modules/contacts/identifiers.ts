import { CONTACT_STRINGS, type IdentifierKind, isEmailAddress } from '@parley/contracts';
import { parsePhoneNumberFromString } from 'libphonenumber-js/min';

/**
 * An address in the one form it is kept and looked up in: an e-mail in lower case; a phone number (and a
 * WhatsApp number) in E.164, which needs its country code (`+60 12-345 6789` -> `+60123456789`); a chat
 * id of another channel as given, without spaces. Answers the reason when the address cannot be read.
 */
export function canonicalIdentifier(
  kind: IdentifierKind,
  raw: string,
): { ok: true; value: string } | { ok: false; reason: string } {
  const value = raw.trim();
  if (kind === 'email') {
    const lower = value.toLowerCase();
    return isEmailAddress(lower) ? { ok: true, value: lower } : { ok: false, reason: CONTACT_STRINGS.badEmail };
  }
  if (kind === 'phone' || kind === 'whatsapp') {
    const withPlus = value.startsWith('00') ? `+${value.slice(2)}` : value;
    const phone = /^[+0-9 ().-]+$/.test(withPlus) ? parsePhoneNumberFromString(withPlus) : undefined;
    return phone?.isPossible() ? { ok: true, value: phone.number } : { ok: false, reason: CONTACT_STRINGS.badPhone };
  }
  // Chat ids (Messenger PSIDs, Telegram ids, X handles, ...): printable, no spaces, case kept.
  const id = kind === 'x' || kind === 'instagram' ? value.replace(/^@/, '').toLowerCase() : value;
  return /^[\p{L}\p{N}._:@+-]{1,200}$/u.test(id)
    ? { ok: true, value: id }
    : { ok: false, reason: CONTACT_STRINGS.badIdentifier };
}

/** The channels whose arrival proves an address: mail came from it, a call or message from that number. */
const PROVEN_BY: Partial<Record<string, IdentifierKind>> = {
  EMAIL: 'email',
  GRAPH_EMAIL: 'email',
  CALL: 'phone',
  SMS: 'phone',
  WHATSAPP: 'whatsapp',
  TELEGRAM: 'telegram',
  LINE_DM: 'line',
  FB_PM: 'messenger',
  IG_PM: 'instagram',
  TW_DM: 'x',
};

/**
 * The identifier kind of the customer's id at a messaging provider (the ticket's `channel_peer`): a Telegram
 * chat id, a LINE user id, a Messenger page-scoped id. WhatsApp and SMS peers are phone numbers, read as such.
 */
export const PEER_KIND: Partial<Record<string, IdentifierKind>> = {
  TELEGRAM: 'telegram',
  LINE_DM: 'line',
  FB_PM: 'messenger',
  IG_PM: 'instagram',
  TW_DM: 'x',
};

/** Whether a conversation on `channel` proves its address of this kind. */
export const provedBy = (channel: string, kind: IdentifierKind) => PROVEN_BY[channel] === kind;

import { type IdentifierKind, WORKSPACE_CHANNEL } from '@parley/contracts';
import { sql } from 'kysely';
import type { Trx } from '../../../platform/outbox/index.js';
import { canonicalIdentifier, PEER_KIND, provedBy } from '../identifiers.js';

export interface Address {
  kind: IdentifierKind;
  value: string;
  verified: boolean;
}

/** The addresses a new conversation carries, canonical; one it cannot read is left out. */
export function conversationAddresses(t: { channel: string; email: string; phone: string; peer?: string }): Address[] {
  const out: Address[] = [];
  const phoneKind: IdentifierKind = t.channel === 'WHATSAPP' ? 'whatsapp' : 'phone';
  const peerKind = PEER_KIND[t.channel];
  for (const [kind, raw] of [
    ['email', t.email],
    [phoneKind, t.phone],
    ...(peerKind && t.peer ? ([[peerKind, t.peer]] as const) : []),
  ] as const) {
    if (!raw.trim()) continue;
    const c = canonicalIdentifier(kind, raw);
    if (c.ok) out.push({ kind, value: c.value, verified: provedBy(t.channel, kind) });
  }
  return out;
}

/**
 * The contact a new conversation is with, inside the transaction that creates it (the account is locked
 * there, so two conversations from one new address make one contact). The contact that owns one of its
 * addresses (a verified one first) gets it, and the addresses nobody owns yet; an address another contact
 * owns stays there: contacts are never merged by themselves. An address the channel proves is marked
 * verified. With no owner a new contact is made, named as the customer gave it (else by the address).
 * Workspace chats and conversations without a readable address have no contact (null).
 */
export async function linkConversation(
  trx: Trx,
  accountId: number,
  t: { channel: string; name: string; email: string; phone: string; peer?: string },
  at: number,
): Promise<number | null> {
  if (t.channel === WORKSPACE_CHANNEL) return null;
  const addresses = conversationAddresses(t);
  if (addresses.length === 0) return null;
  const owned = await trx
    .selectFrom('contact_identifiers')
    .select(['id', 'contact_id', 'kind', 'value', 'verified'])
    .where('account_id', '=', accountId)
    .where((eb) => eb.or(addresses.map((a) => eb.and([eb('kind', '=', a.kind), eb('value', '=', a.value)]))))
    .execute();
  const owner = [...owned].sort((a, b) => Number(b.verified) - Number(a.verified))[0];
  let contactId: number;
  if (owner) {
    contactId = Number(owner.contact_id);
    await trx
      .updateTable('contacts')
      .set({ last_seen_at: sql<number>`case when last_seen_at < ${at} then ${at} else last_seen_at end` })
      .where('account_id', '=', accountId)
      .where('id', '=', contactId)
      .execute();
  } else {
    const name = t.name.trim() || addresses[0]!.value;
    const row = await trx
      .insertInto('contacts')
      .values({
        account_id: accountId,
        name,
        name_lower: name.toLowerCase(),
        merged_into: null,
        last_seen_at: at,
        created_at: at,
        updated_at: at,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    contactId = Number(row.id);
  }
  for (const a of addresses) {
    const mine = owned.find((o) => o.kind === a.kind && o.value === a.value);
    if (!mine) {
      await trx
        .insertInto('contact_identifiers')
        .values({
          account_id: accountId,
          contact_id: contactId,
          kind: a.kind,
          value: a.value,
          verified: a.verified ? 1 : 0,
          created_at: at,
        })
        .execute();
    } else if (a.verified && !mine.verified && Number(mine.contact_id) === contactId) {
      await trx.updateTable('contact_identifiers').set({ verified: 1 }).where('id', '=', mine.id).execute();
    }
  }
  return contactId;
}

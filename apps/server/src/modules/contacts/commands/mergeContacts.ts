import { CONTACT_STRINGS } from '@parley/contracts';
import type { AuthContext } from '../../../platform/auth/sessions.js';
import type { DB } from '../../../platform/db/db.js';
import { badRequest, conflict, notFound } from '../../../platform/http/errors.js';
import { runCommand, type Trx } from '../../../platform/outbox/index.js';
import { recordAudit } from '../../audit/index.js';
import { liveContact } from './saveContact.js';

const lastSeen = async (trx: Trx, accountId: number, id: number) =>
  Number(
    (
      await trx
        .selectFrom('contacts')
        .select('last_seen_at')
        .where('account_id', '=', accountId)
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
    ).last_seen_at,
  );

/**
 * Merges contact `fromId` into `keptId`: its addresses and conversations move to the kept one, and it is
 * hidden (merged_into). The kept contact's own fields stay as they are. What moved is recorded, so the merge
 * can be undone exactly. Answers the merge's id.
 */
export async function mergeContacts(db: DB, auth: AuthContext, keptId: number, fromId: number): Promise<number> {
  if (keptId === fromId) throw badRequest(CONTACT_STRINGS.mergeSelf);
  const { accountId } = auth;
  return runCommand(db, async (trx) => {
    const kept = await liveContact(trx, accountId, keptId);
    const from = await liveContact(trx, accountId, fromId);
    const identifierIds = (
      await trx
        .selectFrom('contact_identifiers')
        .select('id')
        .where('account_id', '=', accountId)
        .where('contact_id', '=', fromId)
        .execute()
    ).map((r) => Number(r.id));
    const ticketIds = (
      await trx
        .selectFrom('tickets')
        .select('id')
        .where('account_id', '=', accountId)
        .where('contact_id', '=', fromId)
        .execute()
    ).map((r) => Number(r.id));
    const at = Date.now();
    const keptSeen = await lastSeen(trx, accountId, keptId);
    const fromSeen = await lastSeen(trx, accountId, fromId);
    await trx
      .updateTable('contact_identifiers')
      .set({ contact_id: keptId })
      .where('account_id', '=', accountId)
      .where('contact_id', '=', fromId)
      .execute();
    await trx
      .updateTable('tickets')
      .set({ contact_id: keptId })
      .where('account_id', '=', accountId)
      .where('contact_id', '=', fromId)
      .execute();
    await trx
      .updateTable('contacts')
      .set({ merged_into: keptId })
      .where('account_id', '=', accountId)
      .where('id', '=', fromId)
      .execute();
    await trx
      .updateTable('contacts')
      .set({ last_seen_at: Math.max(keptSeen, fromSeen) })
      .where('account_id', '=', accountId)
      .where('id', '=', keptId)
      .execute();
    const merge = await trx
      .insertInto('contact_merges')
      .values({
        account_id: accountId,
        kept_id: keptId,
        merged_id: fromId,
        identifier_ids: JSON.stringify(identifierIds),
        ticket_ids: JSON.stringify(ticketIds),
        kept_last_seen_at: keptSeen,
        created_by: auth.userId,
        created_at: at,
        undone_at: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await recordAudit(trx, {
      accountId,
      userId: auth.userId,
      actor: auth.username,
      action: 'contact.merged',
      detail: { kept: kept.name, merged: from.name, addresses: identifierIds.length, conversations: ticketIds.length },
    });
    return Number(merge.id);
  });
}

/**
 * Undoes a merge: the addresses and conversations it moved go back (those still on the kept contact; one an
 * agent removed since stays removed), the merged contact shows again, and the kept contact's last-seen time
 * is what it was. The kept contact must not itself have been merged away since (undo that merge first).
 */
export async function undoMerge(db: DB, auth: AuthContext, mergeId: number): Promise<void> {
  const { accountId } = auth;
  await runCommand(db, async (trx) => {
    const m = await trx
      .selectFrom('contact_merges')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('id', '=', mergeId)
      .executeTakeFirst();
    if (!m) throw notFound(CONTACT_STRINGS.mergeNotFound);
    if (m.undone_at !== null) throw conflict(CONTACT_STRINGS.undone);
    const keptId = Number(m.kept_id);
    const mergedId = Number(m.merged_id);
    const kept = await liveContact(trx, accountId, keptId);
    const identifierIds = JSON.parse(m.identifier_ids) as number[];
    const ticketIds = JSON.parse(m.ticket_ids) as number[];
    if (identifierIds.length > 0)
      await trx
        .updateTable('contact_identifiers')
        .set({ contact_id: mergedId })
        .where('account_id', '=', accountId)
        .where('contact_id', '=', keptId)
        .where('id', 'in', identifierIds)
        .execute();
    if (ticketIds.length > 0)
      await trx
        .updateTable('tickets')
        .set({ contact_id: mergedId })
        .where('account_id', '=', accountId)
        .where('contact_id', '=', keptId)
        .where('id', 'in', ticketIds)
        .execute();
    const merged = await trx
      .updateTable('contacts')
      .set({ merged_into: null })
      .where('account_id', '=', accountId)
      .where('id', '=', mergedId)
      .returning('name')
      .executeTakeFirstOrThrow();
    await trx
      .updateTable('contacts')
      .set({ last_seen_at: Number(m.kept_last_seen_at) })
      .where('account_id', '=', accountId)
      .where('id', '=', keptId)
      .execute();
    await trx
      .updateTable('contact_merges')
      .set({ undone_at: Date.now() })
      .where('account_id', '=', accountId)
      .where('id', '=', mergeId)
      .execute();
    await recordAudit(trx, {
      accountId,
      userId: auth.userId,
      actor: auth.username,
      action: 'contact.merge_undone',
      detail: { kept: kept.name, merged: merged.name },
    });
  });
}

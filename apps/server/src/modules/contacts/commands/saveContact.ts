import {
  CONTACT_STRINGS,
  type ContactFields,
  type CreateContactBody,
  type IdentifierInput,
  type IdentifierKind,
  identityValue,
} from '@parley/contracts';
import type { AuthContext } from '../../../platform/auth/sessions.js';
import type { DB } from '../../../platform/db/db.js';
import { badRequest, conflict, notFound } from '../../../platform/http/errors.js';
import { runCommand, type Trx } from '../../../platform/outbox/index.js';
import { canonicalIdentifier } from '../identifiers.js';

/** The contact's columns from the form: the id input as the generic dialog reads it (SHELL-46). */
export function contactColumns(f: ContactFields) {
  if (f.id_type !== 'None' && !f.refused && !f.id_number) throw badRequest(CONTACT_STRINGS.idNumberRequired);
  return {
    name: f.name,
    name_lower: f.name.toLowerCase(),
    salutation: f.salutation,
    notes: f.notes,
    id_type: f.id_type,
    id_number: f.id_type === 'None' ? '' : identityValue(f.id_type, f.refused, f.id_number),
  };
}

/** The canonical form of each address, or a 400 naming the first one that cannot be read. */
export function canonicalAddresses(list: IdentifierInput[]): { kind: IdentifierKind; value: string }[] {
  return list.map((i) => {
    const c = canonicalIdentifier(i.kind, i.value);
    if (!c.ok) throw badRequest(`${c.reason} (${i.value})`);
    return { kind: i.kind, value: c.value };
  });
}

/** 409 when another contact of the account owns the address already, naming that contact. */
async function assertFree(trx: Trx, accountId: number, a: { kind: string; value: string }, self?: number) {
  const owner = await trx
    .selectFrom('contact_identifiers as ci')
    .innerJoin('contacts as c', 'c.id', 'ci.contact_id')
    .select(['c.id', 'c.name'])
    .where('ci.account_id', '=', accountId)
    .where('ci.kind', '=', a.kind)
    .where('ci.value', '=', a.value)
    .executeTakeFirst();
  if (owner && Number(owner.id) !== self) throw conflict(CONTACT_STRINGS.identifierTaken(owner.name));
  return !!owner;
}

/** Adds addresses an agent typed (not verified) to a contact; an address it owns already is kept. */
export async function addAddresses(
  trx: Trx,
  accountId: number,
  contactId: number,
  list: { kind: string; value: string }[],
  at: number,
): Promise<void> {
  for (const a of list) {
    if (await assertFree(trx, accountId, a, contactId)) continue;
    await trx
      .insertInto('contact_identifiers')
      .values({
        account_id: accountId,
        contact_id: contactId,
        kind: a.kind,
        value: a.value,
        verified: 0,
        created_at: at,
      })
      .execute();
  }
}

/** A contact made by hand: a name or at least one address; addresses another contact owns are refused. */
export async function createContact(db: DB, auth: AuthContext, body: CreateContactBody): Promise<number> {
  const addresses = canonicalAddresses(body.identifiers);
  const columns = contactColumns(body);
  if (!columns.name && addresses.length === 0) throw badRequest(CONTACT_STRINGS.nameRequired);
  const name = columns.name || addresses[0]!.value;
  return runCommand(db, async (trx) => {
    const at = Date.now();
    const row = await trx
      .insertInto('contacts')
      .values({
        ...columns,
        name,
        name_lower: name.toLowerCase(),
        account_id: auth.accountId,
        merged_into: null,
        last_seen_at: at,
        created_at: at,
        updated_at: at,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await addAddresses(trx, auth.accountId, Number(row.id), addresses, at);
    return Number(row.id);
  });
}

/** The contact (not merged away) in the transaction, or 404. */
export async function liveContact(trx: Trx, accountId: number, id: number) {
  const c = await trx
    .selectFrom('contacts')
    .select(['id', 'name', 'merged_into'])
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!c) throw notFound(CONTACT_STRINGS.notFound);
  if (c.merged_into !== null) throw conflict(CONTACT_STRINGS.mergeGone);
  return c;
}

export async function updateContact(db: DB, auth: AuthContext, id: number, body: ContactFields): Promise<void> {
  const columns = contactColumns(body);
  if (!columns.name) throw badRequest(CONTACT_STRINGS.nameRequired);
  await runCommand(db, async (trx) => {
    await liveContact(trx, auth.accountId, id);
    await trx
      .updateTable('contacts')
      .set({ ...columns, updated_at: Date.now() })
      .where('account_id', '=', auth.accountId)
      .where('id', '=', id)
      .execute();
  });
}

export async function addIdentifier(db: DB, auth: AuthContext, id: number, body: IdentifierInput): Promise<void> {
  const [address] = canonicalAddresses([body]);
  await runCommand(db, async (trx) => {
    await liveContact(trx, auth.accountId, id);
    await addAddresses(trx, auth.accountId, id, [address!], Date.now());
  });
}

/** Removes an address from a contact; its conversations stay with the contact. */
export async function removeIdentifier(db: DB, auth: AuthContext, id: number, identifierId: number): Promise<void> {
  await runCommand(db, async (trx) => {
    await liveContact(trx, auth.accountId, id);
    const gone = await trx
      .deleteFrom('contact_identifiers')
      .where('account_id', '=', auth.accountId)
      .where('contact_id', '=', id)
      .where('id', '=', identifierId)
      .executeTakeFirst();
    if (Number(gone.numDeletedRows) === 0) throw notFound(CONTACT_STRINGS.identifierNotFound);
  });
}

import {
  CONTACT_CSV_COLUMNS,
  CONTACT_LIMITS,
  CONTACT_STRINGS,
  ContactFields,
  ID_TYPES,
  type IdentifierKind,
  type ImportAnswer,
  parseCsv,
} from '@parley/contracts';
import type { AuthContext } from '../../../platform/auth/sessions.js';
import type { DB } from '../../../platform/db/db.js';
import { badRequest } from '../../../platform/http/errors.js';
import { runCommand } from '../../../platform/outbox/index.js';
import { recordAudit } from '../../audit/index.js';
import { canonicalIdentifier } from '../identifiers.js';
import { contactColumns } from './saveContact.js';

interface GoodRow {
  row: number;
  columns: ReturnType<typeof contactColumns>;
  given: Set<string>;
  addresses: { kind: IdentifierKind; value: string }[];
}

/** A field the export guarded against spreadsheet formulas (`'+60...`) reads back as written. */
const unguard = (v: string) => (/^'[=+\-@]/.test(v) ? v.slice(1) : v).trim();

/** Reads and checks every row; a bad row is reported with its line number and the others go on. */
function readRows(csv: string): { good: GoodRow[]; errors: ImportAnswer['errors']; rows: number } {
  const lines = parseCsv(csv);
  const header = (lines[0] ?? []).map((h) => h.trim().toLowerCase());
  const col = (name: string) => header.indexOf(name);
  if (col('name') < 0 && col('email') < 0 && col('phone') < 0) throw badRequest(CONTACT_STRINGS.importHeader);
  const body = lines.slice(1);
  if (body.length > CONTACT_LIMITS.importRows)
    throw badRequest(CONTACT_STRINGS.importTooMany(CONTACT_LIMITS.importRows));
  const errors: ImportAnswer['errors'] = [];
  const good: GoodRow[] = [];
  const seen = new Map<string, number>();
  let rows = 0;
  body.forEach((fields, i) => {
    const row = i + 2; // the line in the file: the header is line 1
    if (fields.every((f) => f.trim() === '')) return;
    rows++;
    const get = (name: string) => (col(name) >= 0 ? unguard(fields[col(name)] ?? '') : '');
    const given = new Set(CONTACT_CSV_COLUMNS.filter((c) => get(c) !== ''));
    const parsed = ContactFields.safeParse({
      name: get('name'),
      salutation: get('salutation'),
      notes: get('notes'),
      id_type: get('id_type') || 'None',
      id_number: get('id_number'),
      refused: get('id_number') === 'Refuses to provide',
    });
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const idType = issue.path[0] === 'id_type';
      errors.push({ row, message: idType ? `Unknown ID type. Use one of: ${ID_TYPES.join(', ')}.` : issue.message });
      return;
    }
    const addresses: GoodRow['addresses'] = [];
    for (const kind of ['email', 'phone'] as const) {
      const raw = get(kind);
      if (!raw) continue;
      const c = canonicalIdentifier(kind, raw);
      if (!c.ok) {
        errors.push({ row, message: `${c.reason} (${raw})` });
        return;
      }
      addresses.push({ kind, value: c.value });
    }
    if (!parsed.data.name && addresses.length === 0) {
      errors.push({ row, message: CONTACT_STRINGS.importRowEmpty });
      return;
    }
    let columns: GoodRow['columns'];
    try {
      columns = contactColumns(parsed.data);
    } catch (e) {
      errors.push({ row, message: (e as Error).message });
      return;
    }
    const twice = addresses.map((a) => seen.get(`${a.kind}:${a.value}`)).find((r) => r !== undefined);
    if (twice !== undefined) {
      errors.push({ row, message: CONTACT_STRINGS.importDuplicateInFile(twice) });
      return;
    }
    for (const a of addresses) seen.set(`${a.kind}:${a.value}`, row);
    good.push({ row, columns, given, addresses });
  });
  return { good, errors, rows };
}

/**
 * CSV import. Each good row updates the contact that owns its e-mail or phone (the fields the row fills) or
 * makes a new one; a row whose two addresses belong to two different contacts is refused (merging is an
 * agent's choice). A dry run checks and counts without writing anything.
 */
export async function importContacts(
  db: DB,
  auth: AuthContext,
  csv: string,
  dryRun: boolean,
): Promise<Omit<ImportAnswer, 'result'>> {
  const { good, errors, rows } = readRows(csv);
  if (rows === 0) throw badRequest(CONTACT_STRINGS.importEmpty);
  const { accountId } = auth;
  const counted = await runCommand(db, async (trx) => {
    const owners = new Map<string, { id: number; name: string }>();
    const all = good.flatMap((g) => g.addresses);
    for (let i = 0; i < all.length; i += 500) {
      const chunk = all.slice(i, i + 500);
      const found = await trx
        .selectFrom('contact_identifiers as ci')
        .innerJoin('contacts as c', 'c.id', 'ci.contact_id')
        .select(['ci.kind', 'ci.value', 'c.id', 'c.name'])
        .where('ci.account_id', '=', accountId)
        .where((eb) => eb.or(chunk.map((a) => eb.and([eb('ci.kind', '=', a.kind), eb('ci.value', '=', a.value)]))))
        .execute();
      for (const f of found) owners.set(`${f.kind}:${f.value}`, { id: Number(f.id), name: f.name });
    }
    let created = 0;
    let updated = 0;
    const at = Date.now();
    for (const g of good) {
      const own = [
        ...new Map(
          g.addresses.flatMap((a) => {
            const o = owners.get(`${a.kind}:${a.value}`);
            return o ? [[o.id, o] as const] : [];
          }),
        ).values(),
      ];
      if (own.length > 1) {
        errors.push({
          row: g.row,
          message: `The e-mail and the phone belong to two contacts: ${own[0]!.name} and ${own[1]!.name}.`,
        });
        continue;
      }
      if (dryRun) {
        own.length === 1 ? updated++ : created++;
        continue;
      }
      let contactId: number;
      if (own.length === 1) {
        contactId = own[0]!.id;
        const set = Object.fromEntries(
          Object.entries(g.columns).filter(([k]) => g.given.has(k === 'name_lower' ? 'name' : k)),
        );
        if (Object.keys(set).length > 0)
          await trx
            .updateTable('contacts')
            .set({ ...set, updated_at: at })
            .where('account_id', '=', accountId)
            .where('id', '=', contactId)
            .execute();
        updated++;
      } else {
        const name = g.columns.name || g.addresses[0]!.value;
        const row = await trx
          .insertInto('contacts')
          .values({
            ...g.columns,
            name,
            name_lower: name.toLowerCase(),
            account_id: accountId,
            merged_into: null,
            last_seen_at: at,
            created_at: at,
            updated_at: at,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        contactId = Number(row.id);
        created++;
      }
      for (const a of g.addresses) {
        if (owners.has(`${a.kind}:${a.value}`)) continue;
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
    if (!dryRun && created + updated > 0)
      await recordAudit(trx, {
        accountId,
        userId: auth.userId,
        actor: auth.username,
        action: 'contact.imported',
        detail: { created, updated, refused: errors.length },
      });
    return { created, updated };
  });
  errors.sort((a, b) => a.row - b.row);
  return { dry_run: dryRun, rows, ...counted, errors };
}

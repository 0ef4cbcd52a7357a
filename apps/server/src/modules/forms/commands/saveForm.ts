import { FORM_STRINGS, type FormInput } from '@parley/contracts';
import type { DB } from '../../../platform/db/db.js';
import { badRequest, conflict } from '../../../platform/http/errors.js';
import { runCommand } from '../../../platform/outbox/index.js';
import { type FormRow, formOf, mainForm, newFormToken } from '../forms.queries.js';

/** The account's Main form, made with the default fields on first use (the reads that show forms ask first). */
export const ensureMainForm = (db: DB, accountId: number): Promise<FormRow> =>
  runCommand(db, (trx) => mainForm(trx, accountId));

/** Each key once; a choice has options; other kinds keep none. */
function checked(input: FormInput): FormInput {
  const seen = new Set<string>();
  for (const f of input.fields) {
    if (seen.has(f.key)) throw badRequest(FORM_STRINGS.keyTaken(f.key));
    seen.add(f.key);
    if (f.type === 'select' && f.options.length === 0) throw badRequest(FORM_STRINGS.needsOptions(f.label));
  }
  return { ...input, fields: input.fields.map((f) => (f.type === 'select' ? f : { ...f, options: [] })) };
}

const columns = (input: FormInput) => ({
  name: input.name,
  active: input.active ? 1 : 0,
  fields: JSON.stringify(input.fields),
  start_index: input.start_index,
  data_per_page: input.data_per_page,
});

export async function createForm(db: DB, accountId: number, input: FormInput): Promise<number> {
  const ok = checked(input);
  const at = Date.now();
  const row = await db
    .insertInto('forms')
    .values({ ...columns(ok), account_id: accountId, main: 0, token: newFormToken(), created_at: at, updated_at: at })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

export async function updateForm(db: DB, accountId: number, id: number, input: FormInput): Promise<void> {
  const ok = checked(input);
  await runCommand(db, async (trx) => {
    await formOf(trx, accountId, id);
    await trx
      .updateTable('forms')
      .set({ ...columns(ok), updated_at: Date.now() })
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .execute();
  });
}

/** Removes a custom form and its entries (their tickets stay); the Main form is only switched off. */
export async function deleteForm(db: DB, accountId: number, id: number): Promise<void> {
  await runCommand(db, async (trx) => {
    const f = await formOf(trx, accountId, id);
    if (Number(f.main) === 1) throw conflict(FORM_STRINGS.mainKept);
    await trx.deleteFrom('form_entries').where('account_id', '=', accountId).where('form_id', '=', id).execute();
    await trx.deleteFrom('forms').where('account_id', '=', accountId).where('id', '=', id).execute();
  });
}

/** A new public link: the old one stops working at once. */
export async function renewFormToken(db: DB, accountId: number, id: number): Promise<string> {
  const token = newFormToken();
  await runCommand(db, async (trx) => {
    await formOf(trx, accountId, id);
    await trx
      .updateTable('forms')
      .set({ token, updated_at: Date.now() })
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .execute();
  });
  return token;
}

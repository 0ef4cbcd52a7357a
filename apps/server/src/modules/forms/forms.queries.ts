import { randomBytes } from 'node:crypto';
import {
  type CustomTab,
  DEFAULT_FORM_FIELDS,
  FORM_STRINGS,
  type FormDef,
  type FormEntry,
  FormField,
  type FormValue,
} from '@parley/contracts';
import { z } from 'zod';
import type { DB } from '../../platform/db/db.js';
import { notFound } from '../../platform/http/errors.js';
import type { Trx } from '../../platform/outbox/index.js';

export const newFormToken = () => randomBytes(18).toString('base64url');

export type FormRow = {
  id: number;
  name: string;
  main: number;
  token: string;
  active: number;
  fields: string;
  start_index: number;
  data_per_page: number;
};

const storedFields = z.array(FormField);
export const fieldsOf = (row: { fields: string }): FormField[] => {
  const parsed = storedFields.safeParse(JSON.parse(row.fields));
  return parsed.success ? parsed.data : [];
};
export const tabOf = (f: FormRow): CustomTab => ({
  id: Number(f.id),
  name: f.name,
  start_index: Number(f.start_index),
  data_per_page: Number(f.data_per_page),
});
/** The field labels by key, for naming an entry's values. */
export const labelsOf = (f: FormRow) => Object.fromEntries(fieldsOf(f).map((x) => [x.key, x.label]));
/** The field kinds by key, for the screen to show each answer (a date as every date reads). */
export const typesOf = (f: FormRow) => Object.fromEntries(fieldsOf(f).map((x) => [x.key, x.type]));

const COLUMNS = ['id', 'name', 'main', 'token', 'active', 'fields', 'start_index', 'data_per_page'] as const;

/** The account's Main form, made with the default fields on first use (one per account: a unique index). */
export async function mainForm(db: DB | Trx, accountId: number): Promise<FormRow> {
  const find = () =>
    db.selectFrom('forms').select(COLUMNS).where('account_id', '=', accountId).where('main', '=', 1).executeTakeFirst();
  const found = await find();
  if (found) return found;
  const at = Date.now();
  await db
    .insertInto('forms')
    .values({
      account_id: accountId,
      name: FORM_STRINGS.mainName,
      main: 1,
      token: newFormToken(),
      active: 1,
      fields: JSON.stringify(DEFAULT_FORM_FIELDS),
      start_index: 1,
      data_per_page: 20,
      created_at: at,
      updated_at: at,
    })
    .onConflict((oc) => oc.doNothing())
    .execute();
  return (await find())!;
}

/** A form of the account, or 404. */
export async function formOf(db: DB | Trx, accountId: number, id: number): Promise<FormRow> {
  const f = await db
    .selectFrom('forms')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!f) throw notFound(FORM_STRINGS.notFound);
  return f;
}

/** Every form of the account, the Main one first (made by the caller), with its number of entries (admins' settings). */
export async function listForms(db: DB, accountId: number): Promise<FormDef[]> {
  const rows = await db
    .selectFrom('forms')
    .select([...COLUMNS.map((c) => `forms.${c}` as const)])
    .select((eb) =>
      eb
        .selectFrom('form_entries')
        .select(eb.fn.countAll<number>().as('n'))
        .where('form_entries.account_id', '=', accountId)
        .whereRef('form_entries.form_id', '=', 'forms.id')
        .as('entries'),
    )
    .where('forms.account_id', '=', accountId)
    .orderBy('forms.main', 'desc')
    .orderBy('forms.id')
    .execute();
  return rows.map((f) => ({
    id: Number(f.id),
    name: f.name,
    main: Number(f.main) === 1,
    token: f.token,
    active: Number(f.active) === 1,
    fields: fieldsOf(f),
    start_index: Number(f.start_index),
    data_per_page: Number(f.data_per_page),
    entries: Number(f.entries ?? 0),
  }));
}

/** The custom tabs (every form but the Main one), in the order they were made. */
export async function customTabs(db: DB, accountId: number): Promise<CustomTab[]> {
  const rows = await db
    .selectFrom('forms')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .where('main', '=', 0)
    .orderBy('id')
    .execute();
  return rows.map(tabOf);
}

/** CONTACT-06, CONTACT-07: page `index` (0-based) of a form's entries, `data_per_page` a page, newest first. */
export async function entriesPage(
  db: DB,
  accountId: number,
  form: FormRow,
  index: number,
): Promise<{ total: number; data: FormEntry[] }> {
  const base = db.selectFrom('form_entries').where('account_id', '=', accountId).where('form_id', '=', form.id);
  const [rows, total] = await Promise.all([
    base
      .select(['id', 'form_data', 'ticket_id', 'created_at'])
      .orderBy('id', 'desc')
      .limit(Number(form.data_per_page))
      .offset(index * Number(form.data_per_page))
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return {
    total: Number(total.n),
    data: rows.map((r) => ({
      id: Number(r.id),
      form_data: JSON.parse(r.form_data) as Record<string, FormValue>,
      ticket_id: r.ticket_id === null ? null : Number(r.ticket_id),
      created_at: Number(r.created_at),
    })),
  };
}

import { type Product, type ProductInput, type ProductUpdate, PRODUCT_STRINGS as S } from '@parley/contracts';
import type { AuthContext } from '../../../platform/auth/sessions.js';
import type { DB } from '../../../platform/db/db.js';
import { lockAccount } from '../../../platform/db/locks.js';
import { conflict } from '../../../platform/http/errors.js';
import { runCommand, type Trx } from '../../../platform/outbox/index.js';
import { type AuditAction, recordAudit } from '../../audit/recordAudit.js';
import { PRODUCT_COLUMNS, productRow, toProduct } from '../products.queries.js';

type Parsed<T> = { [K in keyof T]-?: Exclude<T[K], undefined> };

/**
 * Names, and codes when set, are unique in an account whatever their case (a clear 409 before the unique index
 * would refuse); the account's writers take turns while this is checked.
 */
async function assertFree(trx: Trx, accountId: number, v: { name?: string; code?: string | null }, except?: number) {
  await lockAccount(trx, accountId);
  const clash = async (column: 'name_lower' | 'code_lower', value: string) => {
    let q = trx
      .selectFrom('products')
      .select('id')
      .where('account_id', '=', accountId)
      .where(column, '=', value.toLowerCase());
    if (except !== undefined) q = q.where('id', '!=', except);
    return !!(await q.executeTakeFirst());
  };
  if (v.name !== undefined && (await clash('name_lower', v.name))) throw conflict(S.nameTaken(v.name));
  if (v.code && (await clash('code_lower', v.code))) throw conflict(S.codeTaken(v.code));
}

const audit = (trx: Trx, auth: AuthContext, action: AuditAction, detail: Record<string, unknown>) =>
  recordAudit(trx, { accountId: auth.accountId, userId: auth.userId, actor: auth.username, action, detail });

/** An admin adds a product to the catalogue. */
export function createProduct(db: DB, auth: AuthContext, input: Parsed<ProductInput>): Promise<Product> {
  return runCommand(db, async (trx) => {
    await assertFree(trx, auth.accountId, input);
    const now = Date.now();
    const row = await trx
      .insertInto('products')
      .values({
        account_id: auth.accountId,
        name: input.name,
        name_lower: input.name.toLowerCase(),
        code: input.code,
        code_lower: input.code?.toLowerCase() ?? null,
        description: input.description,
        active: 1,
        created_by: auth.userId,
        created_at: now,
        updated_at: now,
      })
      .returning(PRODUCT_COLUMNS)
      .executeTakeFirstOrThrow();
    await audit(trx, auth, 'product.created', { id: Number(row.id), name: row.name });
    return toProduct(row);
  });
}

/** An admin changes a product: its name, code, description, or archives (`active: false`) or restores it. */
export function updateProduct(db: DB, auth: AuthContext, id: number, input: ProductUpdate): Promise<Product> {
  return runCommand(db, async (trx) => {
    const before = toProduct(await productRow(trx, auth.accountId, id));
    await assertFree(trx, auth.accountId, { name: input.name, code: input.code }, id);
    const after: Product = {
      ...before,
      name: input.name ?? before.name,
      code: input.code === undefined ? before.code : input.code,
      description: input.description ?? before.description,
      active: input.active ?? before.active,
      updated_at: Date.now(),
    };
    await trx
      .updateTable('products')
      .set({
        name: after.name,
        name_lower: after.name.toLowerCase(),
        code: after.code,
        code_lower: after.code?.toLowerCase() ?? null,
        description: after.description,
        active: after.active ? 1 : 0,
        updated_at: after.updated_at,
      })
      .where('account_id', '=', auth.accountId)
      .where('id', '=', id)
      .execute();
    const action: AuditAction =
      before.active === after.active ? 'product.updated' : after.active ? 'product.restored' : 'product.archived';
    await audit(trx, auth, action, { id, name: after.name, ...(before.name !== after.name && { from: before.name }) });
    return after;
  });
}

import { type KbCategoryInput as In, KB_STRINGS, type KbCategory } from '@parley/contracts';
import type { AuthContext } from '../../../platform/auth/sessions.js';
import type { DB } from '../../../platform/db/db.js';
import { conflict, notFound } from '../../../platform/http/errors.js';
import { appendEvent, runCommand, type Trx } from '../../../platform/outbox/index.js';
import { toCategory } from '../kb.queries.js';
import { requirePublisher } from '../policy.js';
import { ensureSite } from './saveArticle.js';

type Input = Required<In>;

async function existing(trx: Trx, accountId: number, id: number) {
  const c = await trx
    .selectFrom('kb_categories')
    .select(['id', 'type', 'lang'])
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!c) throw notFound(KB_STRINGS.categoryNotFound);
  return c;
}

const columns = ['id', 'type', 'lang', 'name', 'position'] as const;

/** A new category of one collection and language (admins and supervisors). */
export function createCategory(db: DB, auth: AuthContext, input: Input): Promise<KbCategory> {
  requirePublisher(auth, KB_STRINGS.categoryNotAllowed);
  return runCommand(db, async (trx) => {
    await ensureSite(trx, auth.accountId);
    const row = await trx
      .insertInto('kb_categories')
      .values({ account_id: auth.accountId, ...input, created_at: Date.now() })
      .returning(columns)
      .executeTakeFirstOrThrow();
    await appendEvent(trx, {
      accountId: auth.accountId,
      type: 'kb_category.created',
      payload: { id: Number(row.id), by: auth.userId },
    });
    return toCategory(row);
  });
}

/**
 * Renames or reorders a category. Its collection and language stay (its articles are of them): a category
 * moved elsewhere would leave them behind.
 */
export function updateCategory(db: DB, auth: AuthContext, id: number, input: Input): Promise<KbCategory> {
  requirePublisher(auth, KB_STRINGS.categoryNotAllowed);
  return runCommand(db, async (trx) => {
    await existing(trx, auth.accountId, id);
    const row = await trx
      .updateTable('kb_categories')
      .set({ name: input.name, position: input.position })
      .where('account_id', '=', auth.accountId)
      .where('id', '=', id)
      .returning(columns)
      .executeTakeFirstOrThrow();
    await appendEvent(trx, {
      accountId: auth.accountId,
      type: 'kb_category.updated',
      payload: { id, by: auth.userId },
    });
    return toCategory(row);
  });
}

/** Deletes an empty category (409 while articles are in it). */
export function deleteCategory(db: DB, auth: AuthContext, id: number): Promise<void> {
  requirePublisher(auth, KB_STRINGS.categoryNotAllowed);
  return runCommand(db, async (trx) => {
    await existing(trx, auth.accountId, id);
    const used = await trx
      .selectFrom('kb_articles')
      .select('id')
      .where('account_id', '=', auth.accountId)
      .where('category_id', '=', id)
      .executeTakeFirst();
    if (used) throw conflict(KB_STRINGS.categoryNotEmpty);
    await trx.deleteFrom('kb_categories').where('account_id', '=', auth.accountId).where('id', '=', id).execute();
    await appendEvent(trx, {
      accountId: auth.accountId,
      type: 'kb_category.deleted',
      payload: { id, by: auth.userId },
    });
  });
}

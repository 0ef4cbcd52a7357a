import { randomBytes } from 'node:crypto';
import { ErrorCode, KB_STRINGS, type KbArticle, type KbArticleInput } from '@parley/contracts';
import type { z } from 'zod';
import type { AuthContext } from '../../../platform/auth/sessions.js';
import { type DB, isUniqueViolation } from '../../../platform/db/db.js';
import { AppError, conflict, notFound } from '../../../platform/http/errors.js';
import { appendEvent, runCommand, type Trx } from '../../../platform/outbox/index.js';
import { getArticle } from '../kb.queries.js';
import { requirePublisher } from '../policy.js';

type Input = z.output<typeof KbArticleInput>;

/** The account's public token, made with its first article. */
export async function ensureSite(trx: Trx, accountId: number): Promise<string> {
  const found = await trx.selectFrom('kb_sites').select('token').where('account_id', '=', accountId).executeTakeFirst();
  if (found) return found.token;
  const token = randomBytes(18).toString('base64url');
  await trx.insertInto('kb_sites').values({ account_id: accountId, token, created_at: Date.now() }).execute();
  return token;
}

/** The category must be the account's, of the article's own collection and language. */
async function checkCategory(trx: Trx, accountId: number, input: Input) {
  if (input.category_id === null) return;
  const c = await trx
    .selectFrom('kb_categories')
    .select(['type', 'lang'])
    .where('account_id', '=', accountId)
    .where('id', '=', input.category_id)
    .executeTakeFirst();
  if (!c) throw notFound(KB_STRINGS.categoryNotFound);
  if (c.type !== input.type || c.lang !== input.lang)
    throw new AppError(400, ErrorCode.validation, KB_STRINGS.categoryOtherCollection);
}

async function refuseTakenSlug(trx: Trx, accountId: number, input: Input, except = 0) {
  if (input.slug === null) return;
  const taken = await trx
    .selectFrom('kb_articles')
    .select('id')
    .where('account_id', '=', accountId)
    .where('type', '=', input.type)
    .where('lang', '=', input.lang)
    .where('slug', '=', input.slug)
    .where('id', '!=', except)
    .executeTakeFirst();
  if (taken) throw conflict(KB_STRINGS.slugTaken);
}

/** The questions as given: kept ones (their id is the article's) are changed, new ones added, the rest removed. */
async function saveQuestions(trx: Trx, accountId: number, articleId: number, questions: Input['questions']) {
  const existing = new Set(
    (
      await trx
        .selectFrom('kb_questions')
        .select('id')
        .where('account_id', '=', accountId)
        .where('article_id', '=', articleId)
        .execute()
    ).map((r) => Number(r.id)),
  );
  const kept = questions.flatMap((q) => (q.id !== undefined && existing.has(q.id) ? [q.id] : []));
  const gone = [...existing].filter((id) => !kept.includes(id));
  if (gone.length > 0)
    await trx.deleteFrom('kb_questions').where('account_id', '=', accountId).where('id', 'in', gone).execute();
  for (const [position, q] of questions.entries()) {
    if (q.id !== undefined && existing.has(q.id))
      await trx
        .updateTable('kb_questions')
        .set({ position, question: q.question, answer: q.answer })
        .where('account_id', '=', accountId)
        .where('id', '=', q.id)
        .execute();
    // An id that is not one of this article's questions is a new question (its id is not taken over).
    else
      await trx
        .insertInto('kb_questions')
        .values({ account_id: accountId, article_id: articleId, position, question: q.question, answer: q.answer })
        .execute();
  }
}

async function withSlugGuard<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(KB_STRINGS.slugTaken);
    throw err;
  }
}

const read = async (trx: Trx, accountId: number, id: number) => {
  const a = await getArticle(trx, accountId, { id });
  if (!a) throw notFound(KB_STRINGS.articleNotFound);
  return a;
};

/** A new article, always a draft. Admins and agents write; publishing is a step of its own. */
export function createArticle(db: DB, auth: AuthContext, input: Input): Promise<KbArticle> {
  return withSlugGuard(() =>
    runCommand(db, async (trx) => {
      await checkCategory(trx, auth.accountId, input);
      await refuseTakenSlug(trx, auth.accountId, input);
      await ensureSite(trx, auth.accountId);
      const at = Date.now();
      const row = await trx
        .insertInto('kb_articles')
        .values({
          account_id: auth.accountId,
          type: input.type,
          lang: input.lang,
          category_id: input.category_id,
          slug: input.slug,
          title: input.title,
          body: input.body,
          status: 'draft',
          created_by: auth.userId,
          created_at: at,
          updated_by: auth.userId,
          updated_at: at,
          published_at: null,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const id = Number(row.id);
      await saveQuestions(trx, auth.accountId, id, input.questions);
      await appendEvent(trx, {
        accountId: auth.accountId,
        type: 'kb_article.created',
        payload: { id, by: auth.userId },
      });
      return read(trx, auth.accountId, id);
    }),
  );
}

/**
 * Changes an article. A published article stays published with the new text: a writer who is not a
 * publisher may fix a typo in it (the change is theirs in `updated_by`), as the spec gives agents the
 * knowledge base to keep; only publishers change what is public by publishing, unpublishing or deleting.
 */
export function updateArticle(db: DB, auth: AuthContext, id: number, input: Input): Promise<KbArticle> {
  return withSlugGuard(() =>
    runCommand(db, async (trx) => {
      await read(trx, auth.accountId, id);
      await checkCategory(trx, auth.accountId, input);
      await refuseTakenSlug(trx, auth.accountId, input, id);
      await trx
        .updateTable('kb_articles')
        .set({
          type: input.type,
          lang: input.lang,
          category_id: input.category_id,
          slug: input.slug,
          title: input.title,
          body: input.body,
          updated_by: auth.userId,
          updated_at: Date.now(),
        })
        .where('account_id', '=', auth.accountId)
        .where('id', '=', id)
        .execute();
      await saveQuestions(trx, auth.accountId, id, input.questions);
      await appendEvent(trx, {
        accountId: auth.accountId,
        type: 'kb_article.updated',
        payload: { id, by: auth.userId },
      });
      return read(trx, auth.accountId, id);
    }),
  );
}

/** Publishes or unpublishes an article (admins and supervisors). */
export function setArticleStatus(db: DB, auth: AuthContext, id: number, publish: boolean): Promise<KbArticle> {
  requirePublisher(auth);
  return runCommand(db, async (trx) => {
    const before = await read(trx, auth.accountId, id);
    const at = Date.now();
    await trx
      .updateTable('kb_articles')
      .set({
        status: publish ? 'published' : 'draft',
        published_at: publish ? (before.published_at ?? at) : null,
        updated_by: auth.userId,
        updated_at: at,
      })
      .where('account_id', '=', auth.accountId)
      .where('id', '=', id)
      .execute();
    await appendEvent(trx, {
      accountId: auth.accountId,
      type: publish ? 'kb_article.published' : 'kb_article.unpublished',
      payload: { id, by: auth.userId },
    });
    return read(trx, auth.accountId, id);
  });
}

/** Deletes an article and its questions (admins and supervisors). */
export function deleteArticle(db: DB, auth: AuthContext, id: number): Promise<void> {
  requirePublisher(auth);
  return runCommand(db, async (trx) => {
    await read(trx, auth.accountId, id);
    await trx
      .deleteFrom('kb_questions')
      .where('account_id', '=', auth.accountId)
      .where('article_id', '=', id)
      .execute();
    await trx.deleteFrom('kb_articles').where('account_id', '=', auth.accountId).where('id', '=', id).execute();
    await appendEvent(trx, { accountId: auth.accountId, type: 'kb_article.deleted', payload: { id, by: auth.userId } });
  });
}

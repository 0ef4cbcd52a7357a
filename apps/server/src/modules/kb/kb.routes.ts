import {
  KB_STRINGS,
  KbArticleAnswer,
  KbArticleInput,
  KbArticleListAnswer,
  KbCategoryAnswer,
  KbCategoryInput,
  KbCategoryListAnswer,
  KbIdParams,
  KbListQuery,
  KbSearchAnswer,
  KbSearchQuery,
  KbSiteAnswer,
  OkAnswer,
} from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DB } from '../../platform/db/db.js';
import { notFound } from '../../platform/http/errors.js';
import { runCommand } from '../../platform/outbox/index.js';
import { createArticle, deleteArticle, ensureSite, setArticleStatus, updateArticle } from './commands/saveArticle.js';
import { createCategory, deleteCategory, updateCategory } from './commands/saveCategory.js';
import { getArticle, listArticles, listCategories, searchPublished } from './kb.queries.js';

const CategoryQuery = KbListQuery.pick({ type: true, lang: true });

/** The editor's routes (`/kb`) and the conversation popup's search: every signed-in user of the account. */
export function kbRoutes(app: FastifyInstance, deps: { db: DB }): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db } = deps;
  const ok = 'success' as const;
  const user = { auth: 'user' as const };

  r.get(
    '/api/kb/articles',
    { config: user, schema: { querystring: KbListQuery, response: { 200: KbArticleListAnswer } } },
    async (req) => ({ result: ok, data: await listArticles(db, { accountId: req.auth!.accountId, ...req.query }) }),
  );
  r.get(
    '/api/kb/articles/:id',
    { config: user, schema: { params: KbIdParams, response: { 200: KbArticleAnswer } } },
    async (req) => {
      const a = await getArticle(db, req.auth!.accountId, { id: req.params.id });
      if (!a) throw notFound(KB_STRINGS.articleNotFound);
      return { result: ok, data: a };
    },
  );
  r.post(
    '/api/kb/articles',
    { config: user, schema: { body: KbArticleInput, response: { 200: KbArticleAnswer } } },
    async (req) => ({ result: ok, data: await createArticle(db, req.auth!, req.body) }),
  );
  r.put(
    '/api/kb/articles/:id',
    { config: user, schema: { params: KbIdParams, body: KbArticleInput, response: { 200: KbArticleAnswer } } },
    async (req) => ({ result: ok, data: await updateArticle(db, req.auth!, req.params.id, req.body) }),
  );
  for (const [path, publish] of [
    ['publish', true],
    ['unpublish', false],
  ] as const)
    r.post(
      `/api/kb/articles/:id/${path}`,
      { config: user, schema: { params: KbIdParams, response: { 200: KbArticleAnswer } } },
      async (req) => ({ result: ok, data: await setArticleStatus(db, req.auth!, req.params.id, publish) }),
    );
  r.delete(
    '/api/kb/articles/:id',
    { config: user, schema: { params: KbIdParams, response: { 200: OkAnswer } } },
    async (req) => {
      await deleteArticle(db, req.auth!, req.params.id);
      return { result: ok };
    },
  );

  r.get(
    '/api/kb/categories',
    { config: user, schema: { querystring: CategoryQuery, response: { 200: KbCategoryListAnswer } } },
    async (req) => ({ result: ok, data: await listCategories(db, req.auth!.accountId, req.query) }),
  );
  r.post(
    '/api/kb/categories',
    { config: user, schema: { body: KbCategoryInput, response: { 200: KbCategoryAnswer } } },
    async (req) => ({ result: ok, data: await createCategory(db, req.auth!, req.body) }),
  );
  r.put(
    '/api/kb/categories/:id',
    { config: user, schema: { params: KbIdParams, body: KbCategoryInput, response: { 200: KbCategoryAnswer } } },
    async (req) => ({ result: ok, data: await updateCategory(db, req.auth!, req.params.id, req.body) }),
  );
  r.delete(
    '/api/kb/categories/:id',
    { config: user, schema: { params: KbIdParams, response: { 200: OkAnswer } } },
    async (req) => {
      await deleteCategory(db, req.auth!, req.params.id);
      return { result: ok };
    },
  );

  // The account's public token, made on first use: the editor's "public link" and the popup's links need it.
  r.get('/api/kb/site', { config: user, schema: { response: { 200: KbSiteAnswer } } }, async (req) => ({
    result: ok,
    token: await runCommand(db, (trx) => ensureSite(trx, req.auth!.accountId)),
  }));
  r.get(
    '/api/kb/search',
    { config: user, schema: { querystring: KbSearchQuery, response: { 200: KbSearchAnswer } } },
    async (req) => {
      const accountId = req.auth!.accountId;
      const token = await runCommand(db, (trx) => ensureSite(trx, accountId));
      return { result: ok, data: await searchPublished(db, accountId, token, req.query) };
    },
  );
}

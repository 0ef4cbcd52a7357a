import {
  type KbArticle,
  type KbArticleItem,
  type KbCategory,
  type KbLang,
  type KbSearchHit,
  type KbStatus,
  type KbType,
  kbArticlePath,
  markdownToText,
} from '@parley/contracts';
import { sql } from 'kysely';
import { type DB, onPostgres } from '../../platform/db/db.js';
import type { Trx } from '../../platform/outbox/index.js';
import { ftsMatch, highlight, searchWords, snippetOf, tsQuery } from '../search/index.js';

/** At most this many rows in a list or a search. */
const LIST_MAX = 200;
const SEARCH_MAX = 30;

const ITEM_COLUMNS = [
  'a.id',
  'a.type',
  'a.lang',
  'a.category_id',
  'a.slug',
  'a.title',
  'a.status',
  'a.updated_at',
  'a.body',
] as const;
type ItemRow = {
  id: number;
  type: string;
  lang: string;
  category_id: number | null;
  slug: string | null;
  title: string;
  status: string;
  updated_at: number;
  body: string;
};

const toItem = (r: ItemRow, words: string[]): KbArticleItem => {
  const text = markdownToText(r.body);
  return {
    id: Number(r.id),
    type: r.type as KbType,
    lang: r.lang as KbLang,
    category_id: r.category_id === null ? null : Number(r.category_id),
    slug: r.slug,
    title: r.title,
    status: r.status as KbStatus,
    updated_at: Number(r.updated_at),
    snippet: highlight(words.length > 0 ? snippetOf(text, words) : text.slice(0, 200)),
  };
};

export const toCategory = (r: {
  id: number;
  type: string;
  lang: string;
  name: string;
  position: number;
}): KbCategory => ({
  id: Number(r.id),
  type: r.type as KbType,
  lang: r.lang as KbLang,
  name: r.name,
  position: Number(r.position),
});

export interface ListFilter {
  accountId: number;
  type?: KbType;
  lang?: KbLang;
  status?: KbStatus;
  q?: string;
}

/**
 * Articles of an account, newest change first; with `q`, the full-text matches of every word as a prefix in
 * the title or body (the global search's technique: FTS5 on SQLite, the GIN tsvector index on Postgres),
 * best match first.
 */
export async function listArticles(db: DB | Trx, f: ListFilter, limit = LIST_MAX): Promise<KbArticleItem[]> {
  const words = searchWords(f.q);
  let q = db
    .selectFrom('kb_articles as a')
    .select([...ITEM_COLUMNS])
    .where('a.account_id', '=', f.accountId);
  if (f.type) q = q.where('a.type', '=', f.type);
  if (f.lang) q = q.where('a.lang', '=', f.lang);
  if (f.status) q = q.where('a.status', '=', f.status);
  if (words.length === 0) {
    const rows = await q.orderBy('a.updated_at', 'desc').orderBy('a.id', 'desc').limit(limit).execute();
    return rows.map((r) => toItem(r, []));
  }
  if (onPostgres(db as DB)) {
    const query = tsQuery(words);
    const text = sql`to_tsvector('simple', coalesce(a.title, '') || ' ' || coalesce(a.body, ''))`;
    const rows = await q
      .where(sql<boolean>`${text} @@ to_tsquery('simple', ${query})`)
      .orderBy(sql`ts_rank(${text}, to_tsquery('simple', ${query}))`, 'desc')
      .orderBy('a.updated_at', 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => toItem(r, words));
  }
  const match = ftsMatch(words);
  const rows = await q
    .innerJoin(sql`kb_articles_fts`.as('f'), (j) => j.onRef(sql.ref('f.rowid') as never, '=', 'a.id'))
    .where(sql<boolean>`kb_articles_fts match ${match}`)
    .orderBy(sql`bm25(kb_articles_fts)`)
    .orderBy('a.updated_at', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => toItem(r, words));
}

/** The popup's search: published articles with their text and public link. */
export async function searchPublished(
  db: DB,
  accountId: number,
  token: string,
  q: { q: string; lang?: KbLang },
): Promise<KbSearchHit[]> {
  const items = await listArticles(db, { accountId, status: 'published', lang: q.lang, q: q.q }, SEARCH_MAX);
  if (items.length === 0) return [];
  const bodies = await db
    .selectFrom('kb_articles')
    .select(['id', 'body'])
    .where('account_id', '=', accountId)
    .where(
      'id',
      'in',
      items.map((i) => i.id),
    )
    .execute();
  const text = new Map(bodies.map((b) => [Number(b.id), markdownToText(b.body)]));
  return items.map((i) => ({ ...i, text: text.get(i.id) ?? '', url: kbArticlePath(i, token) }));
}

/** One article of the account, with its questions and who changed it last; undefined when not the account's. */
export async function getArticle(
  db: DB | Trx,
  accountId: number,
  where: { id: number } | { type: KbType; lang: KbLang; slug: string },
  onlyPublished = false,
): Promise<KbArticle | undefined> {
  let q = db
    .selectFrom('kb_articles as a')
    .leftJoin('users as u', (j) => j.onRef('u.id', '=', 'a.updated_by').onRef('u.account_id', '=', 'a.account_id'))
    .select([
      'a.id',
      'a.type',
      'a.lang',
      'a.category_id',
      'a.slug',
      'a.title',
      'a.body',
      'a.status',
      'a.updated_at',
      'a.published_at',
      'u.name as updated_by_name',
      'u.username as updated_by_username',
    ])
    .where('a.account_id', '=', accountId);
  q =
    'id' in where
      ? q.where('a.id', '=', where.id)
      : q.where('a.type', '=', where.type).where('a.lang', '=', where.lang).where('a.slug', '=', where.slug);
  if (onlyPublished) q = q.where('a.status', '=', 'published');
  const r = await q.executeTakeFirst();
  if (!r) return undefined;
  const questions = await db
    .selectFrom('kb_questions')
    .select(['id', 'question', 'answer'])
    .where('account_id', '=', accountId)
    .where('article_id', '=', r.id)
    .orderBy('position')
    .execute();
  return {
    id: Number(r.id),
    type: r.type as KbType,
    lang: r.lang as KbLang,
    category_id: r.category_id === null ? null : Number(r.category_id),
    slug: r.slug,
    title: r.title,
    body: r.body,
    status: r.status as KbStatus,
    questions: questions.map((x) => ({ id: Number(x.id), question: x.question, answer: x.answer })),
    updated_at: Number(r.updated_at),
    updated_by: r.updated_by_name || r.updated_by_username || '',
    published_at: r.published_at === null ? null : Number(r.published_at),
  };
}

/** The categories of an account, optionally of one collection and language, in their order. */
export async function listCategories(
  db: DB | Trx,
  accountId: number,
  f: { type?: KbType; lang?: KbLang } = {},
): Promise<KbCategory[]> {
  let q = db
    .selectFrom('kb_categories')
    .select(['id', 'type', 'lang', 'name', 'position'])
    .where('account_id', '=', accountId);
  if (f.type) q = q.where('type', '=', f.type);
  if (f.lang) q = q.where('lang', '=', f.lang);
  return (await q.orderBy('position').orderBy('name').orderBy('id').execute()).map(toCategory);
}

/** The account a public token names, or undefined. */
export async function accountOfToken(db: DB, token: string): Promise<number | undefined> {
  const r = await db.selectFrom('kb_sites').select('account_id').where('token', '=', token).executeTakeFirst();
  return r ? Number(r.account_id) : undefined;
}

/** The account's public token, if it has one yet. */
export async function tokenOfAccount(db: DB | Trx, accountId: number): Promise<string | undefined> {
  const r = await db.selectFrom('kb_sites').select('token').where('account_id', '=', accountId).executeTakeFirst();
  return r?.token;
}

/** The public view of one collection: its categories and published articles (optionally searched). */
export async function publicIndex(db: DB, accountId: number, type: KbType, lang: KbLang, q?: string) {
  return {
    categories: await listCategories(db, accountId, { type, lang }),
    articles: await listArticles(db, { accountId, type, lang, status: 'published', q }),
  };
}

/** A published article by its id (digits) or its slug. */
export function publicArticle(db: DB, accountId: number, type: KbType, lang: KbLang, idOrSlug: string) {
  const where = /^\d{1,15}$/.test(idOrSlug) ? { id: Number(idOrSlug) } : { type, lang, slug: idOrSlug };
  return getArticle(db, accountId, where, true).then((a) => (a && a.type === type && a.lang === lang ? a : undefined));
}

/** Every published article of the account, for the sitemap. */
export function sitemapRows(db: DB, accountId: number) {
  return db
    .selectFrom('kb_articles')
    .select(['id', 'type', 'lang', 'slug', 'updated_at'])
    .where('account_id', '=', accountId)
    .where('status', '=', 'published')
    .orderBy('type')
    .orderBy('lang')
    .orderBy('id')
    .limit(50_000)
    .execute();
}

/** Whether a published article of the account shows the upload with this key (its public image). */
export async function publiclyShown(db: DB, accountId: number, key: string): Promise<boolean> {
  const needle = `/files/${key}/`;
  const found = onPostgres(db) ? sql`strpos(body, ${needle}) > 0` : sql`instr(body, ${needle}) > 0`;
  const r = await db
    .selectFrom('kb_articles')
    .select('id')
    .where('account_id', '=', accountId)
    .where('status', '=', 'published')
    .where(sql<boolean>`${found}`)
    .executeTakeFirst();
  return r !== undefined;
}

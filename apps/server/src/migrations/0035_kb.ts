import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/**
 * The knowledge base and the support manual (see docs/kb.md).
 * - `kb_sites`: the account's public token, the part of a public URL that names whose articles to show.
 * - `kb_categories`, `kb_articles` (Markdown body, draft or published, an optional slug unique per
 *   collection and language) and `kb_questions` (the Q&A entries of an article, in order).
 * - Full-text index of articles (title and body), as migration 0032 does for messages: FTS5 kept by
 *   triggers on SQLite, a GIN expression index over `to_tsvector('simple', ...)` on Postgres.
 */
const ARTICLE_TEXT = sql.raw(`coalesce(title, '') || ' ' || coalesce(body, '')`);

export const m0035_kb: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    const account = (x: any) => x.notNull().references('accounts.id').onDelete('cascade');
    await db.schema
      .createTable('kb_sites')
      .ifNotExists()
      .addColumn('account_id', c.big, (x) => x.primaryKey().references('accounts.id').onDelete('cascade'))
      .addColumn('token', c.text, (x) => x.notNull().unique())
      .addColumn('created_at', c.big, (x) => x.notNull())
      .execute();
    await c
      .id(db.schema.createTable('kb_categories').ifNotExists())
      .addColumn('account_id', c.big, account)
      .addColumn('type', c.text, (x) => x.notNull())
      .addColumn('lang', c.text, (x) => x.notNull())
      .addColumn('name', c.text, (x) => x.notNull())
      .addColumn('position', c.int, (x) => x.notNull().defaultTo(0))
      .addColumn('created_at', c.big, (x) => x.notNull())
      .execute();
    await c
      .id(db.schema.createTable('kb_articles').ifNotExists())
      .addColumn('account_id', c.big, account)
      .addColumn('type', c.text, (x) => x.notNull())
      .addColumn('lang', c.text, (x) => x.notNull())
      .addColumn('category_id', c.big)
      .addColumn('slug', c.text)
      .addColumn('title', c.text, (x) => x.notNull())
      .addColumn('body', c.text, (x) => x.notNull())
      .addColumn('status', c.text, (x) => x.notNull())
      .addColumn('created_by', c.big, (x) => x.notNull())
      .addColumn('created_at', c.big, (x) => x.notNull())
      .addColumn('updated_by', c.big, (x) => x.notNull())
      .addColumn('updated_at', c.big, (x) => x.notNull())
      .addColumn('published_at', c.big)
      .execute();
    await db.schema
      .createIndex('kb_articles_list_idx')
      .ifNotExists()
      .on('kb_articles')
      .columns(['account_id', 'type', 'lang', 'status'])
      .execute();
    // Unique where set: both databases let several rows hold a null slug.
    await db.schema
      .createIndex('kb_articles_slug_uq')
      .ifNotExists()
      .unique()
      .on('kb_articles')
      .columns(['account_id', 'type', 'lang', 'slug'])
      .execute();
    await c
      .id(db.schema.createTable('kb_questions').ifNotExists())
      .addColumn('account_id', c.big, account)
      .addColumn('article_id', c.big, (x) => x.notNull().references('kb_articles.id').onDelete('cascade'))
      .addColumn('position', c.int, (x) => x.notNull())
      .addColumn('question', c.text, (x) => x.notNull())
      .addColumn('answer', c.text, (x) => x.notNull())
      .execute();
    await db.schema
      .createIndex('kb_questions_article_idx')
      .ifNotExists()
      .on('kb_questions')
      .columns(['account_id', 'article_id'])
      .execute();

    if (dialect === 'postgres') {
      await sql`create index if not exists kb_articles_search_idx on kb_articles
        using gin (to_tsvector('simple', ${ARTICLE_TEXT}))`.execute(db);
      return;
    }
    await sql`create virtual table kb_articles_fts using fts5(title, body, content='kb_articles',
      content_rowid='id', tokenize='unicode61 remove_diacritics 2')`.execute(db);
    await sql`create trigger kb_articles_fts_ai after insert on kb_articles begin
      insert into kb_articles_fts(rowid, title, body) values (new.id, new.title, new.body);
    end`.execute(db);
    await sql`create trigger kb_articles_fts_ad after delete on kb_articles begin
      insert into kb_articles_fts(kb_articles_fts, rowid, title, body) values ('delete', old.id, old.title, old.body);
    end`.execute(db);
    await sql`create trigger kb_articles_fts_au after update of title, body on kb_articles begin
      insert into kb_articles_fts(kb_articles_fts, rowid, title, body) values ('delete', old.id, old.title, old.body);
      insert into kb_articles_fts(rowid, title, body) values (new.id, new.title, new.body);
    end`.execute(db);
  },
};

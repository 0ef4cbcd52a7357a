import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/**
 * Products (docs/products.md): the account's catalogue (`products`; name and code unique per account whatever
 * their case, through their lower-cased copies), the tickets linked to a product (`product_tickets`) and the
 * knowledge base articles linked to one (`product_articles`). A link goes with its ticket, article or product.
 */
export const m0069_products: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    const account = (x: ColumnDefinitionBuilder) => x.notNull().references('accounts.id').onDelete('cascade');
    await c
      .id(db.schema.createTable('products').ifNotExists())
      .addColumn('account_id', c.big, account)
      .addColumn('name', c.text, (x) => x.notNull())
      .addColumn('name_lower', c.text, (x) => x.notNull())
      .addColumn('code', c.text)
      .addColumn('code_lower', c.text)
      .addColumn('description', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('active', c.int, (x) => x.notNull().defaultTo(1))
      .addColumn('created_by', c.big, (x) => x.notNull())
      .addColumn('created_at', c.big, (x) => x.notNull())
      .addColumn('updated_at', c.big, (x) => x.notNull())
      .execute();
    await db.schema
      .createIndex('products_account_name_idx')
      .ifNotExists()
      .unique()
      .on('products')
      .columns(['account_id', 'name_lower'])
      .execute();
    await db.schema
      .createIndex('products_account_code_idx')
      .ifNotExists()
      .unique()
      .on('products')
      .columns(['account_id', 'code_lower'])
      .execute();

    for (const [table, column, target] of [
      ['product_tickets', 'ticket_id', 'tickets.id'],
      ['product_articles', 'article_id', 'kb_articles.id'],
    ] as const) {
      await db.schema
        .createTable(table)
        .ifNotExists()
        .addColumn('account_id', c.big, account)
        .addColumn('product_id', c.big, (x) => x.notNull().references('products.id').onDelete('cascade'))
        .addColumn(column, c.big, (x) => x.notNull().references(target).onDelete('cascade'))
        .addColumn('linked_by', c.big, (x) => x.notNull())
        .addColumn('linked_at', c.big, (x) => x.notNull())
        .addPrimaryKeyConstraint(`${table}_pk`, ['product_id', column])
        .execute();
      await db.schema
        .createIndex(`${table}_account_${column}_idx`)
        .ifNotExists()
        .on(table)
        .columns(['account_id', column])
        .execute();
    }
  },
};

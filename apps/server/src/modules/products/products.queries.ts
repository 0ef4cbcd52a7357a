import {
  PRODUCT_TICKETS_PAGE,
  type Product,
  type ProductArticle,
  type ProductDetail,
  type ProductListQuery,
  type ProductRef,
  type ProductSummary,
  type ProductTicket,
  PRODUCT_STRINGS as S,
  TICKET_STATUS,
} from '@parley/contracts';
import { type Expression, type ExpressionBuilder, type SqlBool, sql } from 'kysely';
import { type DB, likeEscape } from '../../platform/db/db.js';
import type { Database } from '../../platform/db/schema.js';
import { notFound } from '../../platform/http/errors.js';
import type { Trx } from '../../platform/outbox/index.js';
import { ticketVisibleTo } from '../tickets/index.js';

type Db = DB | Trx;
/** Who asks: every read is scoped to the account, and tickets to those the user may see. */
export interface Viewer {
  accountId: number;
  userId: number;
}

export const PRODUCT_COLUMNS = [
  'products.id',
  'products.name',
  'products.code',
  'products.description',
  'products.active',
  'products.created_at',
  'products.updated_at',
] as const;

export interface ProductRow {
  id: number | bigint;
  name: string;
  code: string | null;
  description: string;
  active: number | bigint;
  created_at: number | bigint;
  updated_at: number | bigint;
}

export const toProduct = (r: ProductRow): Product => ({
  id: Number(r.id),
  name: r.name,
  code: r.code,
  description: r.description,
  active: Number(r.active) === 1,
  created_at: Number(r.created_at),
  updated_at: Number(r.updated_at),
});

/**
 * The ticket list's own rule of which tickets a user may see (a Workspace chat: its members only), applied to a
 * query that joins `tickets` under its own name.
 */
const visible = <T extends keyof Database>(eb: ExpressionBuilder<Database, T | 'tickets'>, viewer: Viewer) =>
  ticketVisibleTo(eb as unknown as ExpressionBuilder<Database, 'tickets'>, viewer);

/** The counts of a product row (`products` in the outer query): visible tickets, the open ones, articles. */
function counts(eb: ExpressionBuilder<Database, 'products'>, viewer: Viewer) {
  const tickets = (open: boolean) => {
    let q = eb
      .selectFrom('product_tickets')
      .innerJoin('tickets', 'tickets.id', 'product_tickets.ticket_id')
      .select((x) => x.fn.countAll<number>().as('n'))
      .where('product_tickets.account_id', '=', viewer.accountId)
      .whereRef('product_tickets.product_id', '=', 'products.id')
      .where('tickets.account_id', '=', viewer.accountId)
      .where((x) => visible(x, viewer));
    if (open) q = q.where('tickets.closed', 'not in', [TICKET_STATUS.resolved, TICKET_STATUS.closed]);
    return q;
  };
  return [
    tickets(false).as('tickets'),
    tickets(true).as('open_tickets'),
    eb
      .selectFrom('product_articles')
      .innerJoin('kb_articles', 'kb_articles.id', 'product_articles.article_id')
      .select((x) => x.fn.countAll<number>().as('n'))
      .where('product_articles.account_id', '=', viewer.accountId)
      .whereRef('product_articles.product_id', '=', 'products.id')
      .where('kb_articles.account_id', '=', viewer.accountId)
      .as('articles'),
  ];
}

const toSummary = (r: ProductRow & { tickets: unknown; open_tickets: unknown; articles: unknown }): ProductSummary => ({
  ...toProduct(r),
  tickets: Number(r.tickets ?? 0),
  open_tickets: Number(r.open_tickets ?? 0),
  articles: Number(r.articles ?? 0),
});

/** One page of the catalogue by name, with counts; `q` finds a part of the name or the code, any case. */
export async function listProducts(
  db: Db,
  viewer: Viewer,
  query: ProductListQuery,
): Promise<{ data: ProductSummary[]; total: number }> {
  const where = (eb: ExpressionBuilder<Database, 'products'>): Expression<SqlBool> => {
    const all: Expression<SqlBool>[] = [eb('products.account_id', '=', viewer.accountId)];
    if (query.status !== 'all') all.push(eb('products.active', '=', query.status === 'active' ? 1 : 0));
    if (query.q) {
      const pattern = `%${likeEscape(query.q.toLowerCase())}%`;
      all.push(
        eb.or([
          sql<SqlBool>`products.name_lower like ${pattern} escape '!'`,
          sql<SqlBool>`products.code_lower like ${pattern} escape '!'`,
        ]),
      );
    }
    return eb.and(all);
  };
  const [total, rows] = await Promise.all([
    db
      .selectFrom('products')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where(where)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('products')
      .select(PRODUCT_COLUMNS)
      .select((eb) => counts(eb, viewer))
      .where(where)
      .orderBy('products.name_lower')
      .orderBy('products.id')
      .limit(query.pagination)
      .offset((query.page - 1) * query.pagination)
      .execute(),
  ]);
  return { data: rows.map(toSummary), total: Number(total.n) };
}

/** A product of the account, or 404 (another account's id reads the same as a missing one). */
export async function productRow(db: Db, accountId: number, id: number): Promise<ProductRow> {
  const row = await db
    .selectFrom('products')
    .select(PRODUCT_COLUMNS)
    .where('products.account_id', '=', accountId)
    .where('products.id', '=', id)
    .executeTakeFirst();
  if (!row) throw notFound(S.notFound);
  return row;
}

/** The articles linked to a product, by title. */
export async function productArticles(db: Db, accountId: number, id: number): Promise<ProductArticle[]> {
  const rows = await db
    .selectFrom('product_articles')
    .innerJoin('kb_articles', 'kb_articles.id', 'product_articles.article_id')
    .select([
      'kb_articles.id',
      'kb_articles.title',
      'kb_articles.type',
      'kb_articles.lang',
      'kb_articles.slug',
      'kb_articles.status',
      'kb_articles.updated_at',
    ])
    .where('product_articles.account_id', '=', accountId)
    .where('product_articles.product_id', '=', id)
    .where('kb_articles.account_id', '=', accountId)
    .orderBy('kb_articles.title')
    .orderBy('kb_articles.id')
    .execute();
  return rows.map((r) => ({ ...r, id: Number(r.id), updated_at: Number(r.updated_at) }));
}

/** `/product/{id}`: the product with its counts and its articles. */
export async function productDetail(db: Db, viewer: Viewer, id: number): Promise<ProductDetail> {
  const row = await db
    .selectFrom('products')
    .select(PRODUCT_COLUMNS)
    .select((eb) => counts(eb, viewer))
    .where('products.account_id', '=', viewer.accountId)
    .where('products.id', '=', id)
    .executeTakeFirst();
  if (!row) throw notFound(S.notFound);
  return { product: toSummary(row), articles: await productArticles(db, viewer.accountId, id) };
}

/** A page of a product's tickets the viewer may see, newest first. */
export async function productTickets(
  db: Db,
  viewer: Viewer,
  id: number,
  page: number,
): Promise<{ data: ProductTicket[]; total: number }> {
  await productRow(db, viewer.accountId, id);
  const base = db
    .selectFrom('product_tickets')
    .innerJoin('tickets', 'tickets.id', 'product_tickets.ticket_id')
    .where('product_tickets.account_id', '=', viewer.accountId)
    .where('product_tickets.product_id', '=', id)
    .where('tickets.account_id', '=', viewer.accountId)
    .where((eb) => visible(eb, viewer));
  const [total, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    base
      .select([
        'tickets.id',
        'tickets.ticket_number',
        'tickets.title',
        'tickets.channel',
        'tickets.closed',
        'tickets.created_at',
        'tickets.updated_at',
      ])
      .orderBy('tickets.created_at', 'desc')
      .orderBy('tickets.id', 'desc')
      .limit(PRODUCT_TICKETS_PAGE)
      .offset((page - 1) * PRODUCT_TICKETS_PAGE)
      .execute(),
  ]);
  return {
    data: rows.map((r) => ({
      id: Number(r.id),
      ticket_number: Number(r.ticket_number),
      title: r.title,
      channel: r.channel,
      closed: Number(r.closed),
      created_at: Number(r.created_at),
      updated_at: Number(r.updated_at),
    })),
    total: Number(total.n),
  };
}

/** The ticket, when it is the account's and the viewer may see it; else 404, as for a missing one. */
export async function visibleTicket(db: Db, viewer: Viewer, ticketId: number): Promise<void> {
  const t = await db
    .selectFrom('tickets')
    .select('tickets.id')
    .where('tickets.account_id', '=', viewer.accountId)
    .where('tickets.id', '=', ticketId)
    .where((eb) => ticketVisibleTo(eb, viewer))
    .executeTakeFirst();
  if (!t) throw notFound(S.ticketNotFound);
}

/** The products a ticket is linked to, by name (archived ones too, marked). */
export async function ticketProducts(db: Db, viewer: Viewer, ticketId: number): Promise<ProductRef[]> {
  await visibleTicket(db, viewer, ticketId);
  const rows = await db
    .selectFrom('product_tickets')
    .innerJoin('products', 'products.id', 'product_tickets.product_id')
    .select(['products.id', 'products.name', 'products.code', 'products.active'])
    .where('product_tickets.account_id', '=', viewer.accountId)
    .where('product_tickets.ticket_id', '=', ticketId)
    .where('products.account_id', '=', viewer.accountId)
    .orderBy('products.name_lower')
    .execute();
  return rows.map((r) => ({ id: Number(r.id), name: r.name, code: r.code, active: Number(r.active) === 1 }));
}

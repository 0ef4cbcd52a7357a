import {
  ProductAnswer,
  ProductArticlesAnswer,
  ProductArticlesInput,
  ProductDetailAnswer,
  ProductInput,
  ProductListAnswer,
  ProductListQuery,
  ProductTicketsAnswer,
  ProductTicketsQuery,
  ProductUpdate,
  TicketProductsAnswer,
  TicketProductsInput,
} from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DB } from '../../platform/db/db.js';
import { IdParams } from '../../platform/http/params.js';
import { setProductArticles, setTicketProducts } from './commands/linkProducts.js';
import { createProduct, updateProduct } from './commands/saveProduct.js';
import { listProducts, productDetail, productTickets, ticketProducts } from './products.queries.js';

const ok = <T>(data: T) => ({ result: 'success' as const, data });

/**
 * Products (docs/products.md): every user reads the catalogue, a product's tickets (those the user may see)
 * and its articles, links tickets it can see and articles; admins create, edit, archive and restore products.
 */
export function productRoutes(app: FastifyInstance, deps: { db: DB }) {
  const { db } = deps;
  const r = app.withTypeProvider<ZodTypeProvider>();
  const viewer = (auth: { accountId: number; userId: number }) => ({ accountId: auth.accountId, userId: auth.userId });

  r.get(
    '/api/products',
    { config: { auth: 'user' }, schema: { querystring: ProductListQuery, response: { 200: ProductListAnswer } } },
    async (req) => ({ result: 'success' as const, ...(await listProducts(db, viewer(req.auth!), req.query)) }),
  );
  r.post(
    '/api/products',
    { config: { auth: 'admin' }, schema: { body: ProductInput, response: { 200: ProductAnswer } } },
    async (req) => ok(await createProduct(db, req.auth!, req.body)),
  );
  r.get(
    '/api/products/:id',
    { config: { auth: 'user' }, schema: { params: IdParams, response: { 200: ProductDetailAnswer } } },
    async (req) => ok(await productDetail(db, viewer(req.auth!), req.params.id)),
  );
  r.put(
    '/api/products/:id',
    { config: { auth: 'admin' }, schema: { params: IdParams, body: ProductUpdate, response: { 200: ProductAnswer } } },
    async (req) => ok(await updateProduct(db, req.auth!, req.params.id, req.body)),
  );
  r.get(
    '/api/products/:id/tickets',
    {
      config: { auth: 'user' },
      schema: { params: IdParams, querystring: ProductTicketsQuery, response: { 200: ProductTicketsAnswer } },
    },
    async (req) => ({
      result: 'success' as const,
      ...(await productTickets(db, viewer(req.auth!), req.params.id, req.query.page)),
    }),
  );
  r.put(
    '/api/products/:id/articles',
    {
      config: { auth: 'user' },
      schema: { params: IdParams, body: ProductArticlesInput, response: { 200: ProductArticlesAnswer } },
    },
    async (req) => ok(await setProductArticles(db, req.auth!, req.params.id, req.body.article_ids)),
  );
  r.get(
    '/api/products/ticket/:id',
    { config: { auth: 'user' }, schema: { params: IdParams, response: { 200: TicketProductsAnswer } } },
    async (req) => ok(await ticketProducts(db, viewer(req.auth!), req.params.id)),
  );
  r.put(
    '/api/products/ticket/:id',
    {
      config: { auth: 'user' },
      schema: { params: IdParams, body: TicketProductsInput, response: { 200: TicketProductsAnswer } },
    },
    async (req) => ok(await setTicketProducts(db, req.auth!, req.params.id, req.body.product_ids)),
  );
}

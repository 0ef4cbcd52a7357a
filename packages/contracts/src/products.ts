import { z } from 'zod';

/**
 * Products (`/product`, `/product/{id}`; see docs/products.md): the account's catalogue of the products its
 * customers ask about. Admins keep the catalogue (create, edit, archive); any agent links a ticket it can see to
 * products from the ticket's Details panel; articles of the knowledge base are linked from the product's page.
 */

const blank = (v: unknown) => (v === '' || v === null ? undefined : v);

export const PRODUCT_LIMITS = { name: 100, code: 40, description: 2000, search: 100, links: 50 } as const;
/** Tickets per page of a product's page. */
export const PRODUCT_TICKETS_PAGE = 20;
/** Products per page of the list. */
export const PRODUCT_PAGE_SIZE = 25;

export const PRODUCT_STRINGS = {
  title: 'Products',
  notFound: 'Product not found.',
  notFoundText: 'This product does not exist in this account, or it was removed.',
  nameRequired: 'Give the product a name.',
  nameTooLong: `A product name has at most ${PRODUCT_LIMITS.name} characters.`,
  codeTooLong: `A product code has at most ${PRODUCT_LIMITS.code} characters.`,
  descriptionTooLong: `A description has at most ${PRODUCT_LIMITS.description} characters.`,
  searchTooLong: `A search has at most ${PRODUCT_LIMITS.search} characters.`,
  tooMany: `At most ${PRODUCT_LIMITS.links} links at once.`,
  nameTaken: (name: string) => `There is already a product named "${name}".`,
  codeTaken: (code: string) => `There is already a product with the code "${code}".`,
  adminsOnly: 'Only admins manage the product catalogue.',
  ticketNotFound: 'Ticket not found.',
  unknownProduct: 'No such product.',
  archivedProduct: (name: string) => `"${name}" is archived: restore it before linking tickets to it.`,
  unknownArticle: 'No such article.',
} as const;

const name = z
  .string({ error: PRODUCT_STRINGS.nameRequired })
  .trim()
  .min(1, PRODUCT_STRINGS.nameRequired)
  .max(PRODUCT_LIMITS.name, PRODUCT_STRINGS.nameTooLong);
/** An optional SKU or code: blank means none. */
const code = z
  .string()
  .trim()
  .max(PRODUCT_LIMITS.code, PRODUCT_STRINGS.codeTooLong)
  .nullish()
  .transform((v) => (v ? v : null));
const description = z.string().trim().max(PRODUCT_LIMITS.description, PRODUCT_STRINGS.descriptionTooLong).default('');
const id = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);

export const Product = z.object({
  id: z.number(),
  name: z.string(),
  code: z.string().nullable(),
  description: z.string(),
  active: z.boolean(),
  created_at: z.number(),
  updated_at: z.number(),
});
export type Product = z.infer<typeof Product>;

/** A list row: the product with how many tickets (open ones: not resolved or closed) and articles it has. */
export const ProductSummary = Product.extend({ open_tickets: z.number(), tickets: z.number(), articles: z.number() });
export type ProductSummary = z.infer<typeof ProductSummary>;

/** `GET /api/products?q&status&page&pagination`: name or code contains `q`; active products unless `status` says. */
export const ProductListQuery = z.object({
  q: z.string().trim().max(PRODUCT_LIMITS.search, PRODUCT_STRINGS.searchTooLong).default(''),
  status: z.enum(['active', 'archived', 'all']).default('active'),
  page: z.preprocess(blank, z.coerce.number().int().min(1).max(1_000_000).default(1)),
  pagination: z.preprocess(blank, z.coerce.number().int().min(1).max(100).default(PRODUCT_PAGE_SIZE)),
});
export type ProductListQuery = z.infer<typeof ProductListQuery>;
export const ProductListAnswer = z.object({
  result: z.literal('success'),
  data: z.array(ProductSummary),
  total: z.number(),
});
export type ProductListAnswer = z.infer<typeof ProductListAnswer>;

/** `POST /api/products`. */
export const ProductInput = z.object({ name, code, description });
export type ProductInput = z.input<typeof ProductInput>;
/** `PUT /api/products/{id}`: every field optional; `active: false` archives, `true` restores. */
export const ProductUpdate = z.object({
  name: name.optional(),
  code: z
    .string()
    .trim()
    .max(PRODUCT_LIMITS.code, PRODUCT_STRINGS.codeTooLong)
    .nullish()
    .transform((v) => (v === undefined ? undefined : v ? v : null)),
  description: z.string().trim().max(PRODUCT_LIMITS.description, PRODUCT_STRINGS.descriptionTooLong).optional(),
  active: z.boolean().optional(),
});
export type ProductUpdate = z.input<typeof ProductUpdate>;
export const ProductAnswer = z.object({ result: z.literal('success'), data: Product });

/** An article linked to a product (drafts too: every user of the account reads them). */
export const ProductArticle = z.object({
  id: z.number(),
  title: z.string(),
  type: z.string(),
  lang: z.string(),
  slug: z.string().nullable(),
  status: z.string(),
  updated_at: z.number(),
});
export type ProductArticle = z.infer<typeof ProductArticle>;

/** `GET /api/products/{id}`: the product, its counts and its articles. */
export const ProductDetailAnswer = z.object({
  result: z.literal('success'),
  data: z.object({ product: ProductSummary, articles: z.array(ProductArticle) }),
});
export type ProductDetail = z.infer<typeof ProductDetailAnswer>['data'];

/** A ticket of a product's page, as the viewer may see it. */
export const ProductTicket = z.object({
  id: z.number(),
  ticket_number: z.number(),
  title: z.string(),
  channel: z.string(),
  closed: z.number(),
  created_at: z.number(),
  updated_at: z.number(),
});
export type ProductTicket = z.infer<typeof ProductTicket>;
/** `GET /api/products/{id}/tickets?page`: newest first, only tickets the caller may see. */
export const ProductTicketsQuery = z.object({
  page: z.preprocess(blank, z.coerce.number().int().min(1).max(1_000_000).default(1)),
});
export const ProductTicketsAnswer = z.object({
  result: z.literal('success'),
  data: z.array(ProductTicket),
  total: z.number(),
});
export type ProductTicketsAnswer = z.infer<typeof ProductTicketsAnswer>;

/** A product as a ticket's Details panel names it. */
export const ProductRef = z.object({
  id: z.number(),
  name: z.string(),
  code: z.string().nullable(),
  active: z.boolean(),
});
export type ProductRef = z.infer<typeof ProductRef>;
/** `GET` and `PUT /api/products/ticket/{id}`: the ticket's products. */
export const TicketProductsAnswer = z.object({ result: z.literal('success'), data: z.array(ProductRef) });
/** `PUT /api/products/ticket/{id}`: the whole set of the ticket's products (links added and removed to match). */
export const TicketProductsInput = z.object({
  product_ids: z.array(id).max(PRODUCT_LIMITS.links, PRODUCT_STRINGS.tooMany),
});
/** `PUT /api/products/{id}/articles`: the whole set of the product's articles. */
export const ProductArticlesInput = z.object({
  article_ids: z.array(id).max(PRODUCT_LIMITS.links, PRODUCT_STRINGS.tooMany),
});
export const ProductArticlesAnswer = z.object({ result: z.literal('success'), data: z.array(ProductArticle) });

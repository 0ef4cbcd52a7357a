import {
  PRODUCT_PAGE_SIZE,
  type Product,
  type ProductArticle,
  type ProductDetail,
  type ProductInput,
  type ProductListAnswer,
  type ProductRef,
  type ProductTicketsAnswer,
  type ProductUpdate,
} from '@parley/contracts';
import { api } from '../../lib/http';

type Ok<T> = { result: 'success'; data: T };
export type ProductStatusFilter = 'active' | 'archived' | 'all';

/** An article as the picker offers it (the knowledge base editor's list). */
export interface ArticleOption {
  id: number;
  title: string;
  type: string;
  lang: string;
  status: string;
}

/** The products feature's query keys: everything under `products`, so one invalidation refreshes it all. */
export const productKeys = {
  all: ['products'] as const,
  list: (q: string, status: ProductStatusFilter, page: number) => ['products', 'list', q, status, page] as const,
  one: (id: number) => ['products', 'one', id] as const,
  tickets: (id: number, page: number) => ['products', 'tickets', id, page] as const,
  ofTicket: (ticketId: number) => ['products', 'ofTicket', ticketId] as const,
  catalogue: ['products', 'catalogue'] as const,
  articles: ['products', 'kbArticles'] as const,
};

export const productsApi = {
  list: (q: string, status: ProductStatusFilter, page: number, pageSize = PRODUCT_PAGE_SIZE) =>
    api<ProductListAnswer>(
      'GET',
      `/api/products?q=${encodeURIComponent(q)}&status=${status}&page=${page}&pagination=${pageSize}`,
    ),
  one: (id: number) => api<Ok<ProductDetail>>('GET', `/api/products/${id}`).then((r) => r.data),
  tickets: (id: number, page: number) => api<ProductTicketsAnswer>('GET', `/api/products/${id}/tickets?page=${page}`),
  create: (input: ProductInput) => api<Ok<Product>>('POST', '/api/products', input).then((r) => r.data),
  update: (id: number, input: ProductUpdate) =>
    api<Ok<Product>>('PUT', `/api/products/${id}`, input).then((r) => r.data),
  setArticles: (id: number, articleIds: number[]) =>
    api<Ok<ProductArticle[]>>('PUT', `/api/products/${id}/articles`, { article_ids: articleIds }).then((r) => r.data),
  ofTicket: (ticketId: number) => api<Ok<ProductRef[]>>('GET', `/api/products/ticket/${ticketId}`).then((r) => r.data),
  setOfTicket: (ticketId: number, productIds: number[]) =>
    api<Ok<ProductRef[]>>('PUT', `/api/products/ticket/${ticketId}`, { product_ids: productIds }).then((r) => r.data),
  /** Every article of the account (both collections, drafts too), for the product page's picker. */
  articles: () => api<Ok<ArticleOption[]>>('GET', '/api/kb/articles').then((r) => r.data),
};

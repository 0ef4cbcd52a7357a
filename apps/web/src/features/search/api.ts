import { parseSearch, SEARCH_PAGE_SIZE, type SearchAnswer } from '@parley/contracts';
import { api } from '../../lib/http';

/** SEARCH-12: what the box holds as the API's parameters; the pages are 0-based (SEARCH-05). */
export function searchParams(text: string, page: number, messagePage: number): string {
  const { free, terms } = parseSearch(text);
  const q = new URLSearchParams();
  if (free) q.set('entity', free);
  if (terms.number) q.set('ticket', terms.number);
  if (terms.label) q.set('label', terms.label);
  if (terms.from) q.set('username', terms.from);
  if (terms.message) q.set('message', terms.message);
  if (terms.contact) q.set('contact', terms.contact);
  q.set('search_index', String(page * SEARCH_PAGE_SIZE));
  q.set('search_message_index', String(messagePage * SEARCH_PAGE_SIZE));
  return q.toString();
}

export const searchApi = {
  /** SEARCH-08: one page of every group. */
  data: (text: string, page: number, messagePage: number) =>
    api<SearchAnswer>('GET', `/api/search/data?${searchParams(text, page, messagePage)}`),
};

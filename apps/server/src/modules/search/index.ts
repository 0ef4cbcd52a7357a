/** Global search (SEARCH-01..12): full-text over messages and tickets, labels, contacts and agents. */

/** Read side: one page of every result group; the query builders and snippets the knowledge base reuses. */
export {
  ftsMatch,
  highlight,
  type Searcher,
  search,
  searchWords,
  snippetOf,
  tsQuery,
} from './search.queries.js';
/** HTTP route of the module. */
export { searchRoutes } from './search.routes.js';

/** Global search (SEARCH-01..12): full-text over messages and tickets, labels, contacts and agents. */

/** Read side: one page of every result group. */
export { highlight, type Searcher, search, searchWords, snippetOf } from './search.queries.js';
/** HTTP route of the module. */
export { searchRoutes } from './search.routes.js';

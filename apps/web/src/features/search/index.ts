/** The global search modal (SEARCH-01..12) and its shortcut. */
export { SearchButton, SearchModal, useSearchShortcut } from './SearchModal';

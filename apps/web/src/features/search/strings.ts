import { SEARCH_STRINGS } from '@parley/contracts';

/** The modal's words: the spec's (SEARCH-01, SEARCH-02) and the contracts' own. */
export const T = {
  ...SEARCH_STRINGS,
  open: 'Search (Ctrl+K)',
  results: 'Search results',
  page: (n: number, total: number) => `${n} of ${total}`,
} as const;

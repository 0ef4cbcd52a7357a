import { useSyncExternalStore } from 'react';
import { DEFAULT_FILTERS, type TicketFilters } from './api';

/** What the ticket list shows: its filters and its tab (all, department, label). */
export interface TicketListView {
  filters: TicketFilters;
  tab: string;
}

const INITIAL: TicketListView = { filters: DEFAULT_FILTERS, tab: 'all' };

/**
 * Per user, for the life of the page: a reload starts from the default list again (saved presets, TICKET-07,
 * are how a set of filters comes back), and the next user signing in on this page gets their own.
 */
const views = new Map<number | 'anon', TicketListView>();
const listeners = new Set<() => void>();

const read = (user: number | 'anon') => views.get(user) ?? INITIAL;
function write(user: number | 'anon', patch: Partial<TicketListView>) {
  views.set(user, { ...read(user), ...patch });
  for (const l of listeners) l();
}
const subscribe = (l: () => void) => {
  listeners.add(l);
  return () => {
    listeners.delete(l);
  };
};

/**
 * The ticket list's filters and tab, held above the routes: `/ticket` and `/ticket/:id` each mount their
 * own list, and both read this one view, so opening a ticket and going back keeps the filters.
 */
export function useTicketListView(userId: number | undefined) {
  const user = userId ?? 'anon';
  const view = useSyncExternalStore(subscribe, () => read(user));
  return {
    filters: view.filters,
    tab: view.tab,
    setFilters: (filters: TicketFilters) => write(user, { filters }),
    setTab: (tab: string) => write(user, { tab }),
  };
}

import { DEFAULT_FILTERS, type TicketFilters } from '../../lib/api/tickets';
import { createStore, useStore } from '../../lib/store';

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
const views = createStore(new Map<number | 'anon', TicketListView>());

function write(user: number | 'anon', patch: Partial<TicketListView>) {
  views.set((all) => new Map(all).set(user, { ...(all.get(user) ?? INITIAL), ...patch }));
}

/**
 * The ticket list's filters and tab, held above the routes: `/ticket` and `/ticket/:id` each mount their
 * own list, and both read this one view, so opening a ticket and going back keeps the filters.
 */
export function useTicketListView(userId: number | undefined) {
  const user = userId ?? 'anon';
  const view = useStore(views).get(user) ?? INITIAL;
  return {
    filters: view.filters,
    tab: view.tab,
    setFilters: (filters: TicketFilters) => write(user, { filters }),
    setTab: (tab: string) => write(user, { tab }),
  };
}

/** The Kanban screen's words (ours: the spec names the screen only). */
export const K = {
  title: 'Kanban',
  help: 'Drag a card to another column to change its status.',
  empty: 'No tickets.',
  loading: 'Loading…',
  showMore: 'Show More',
  moveTo: 'Move to',
  moveMenu: (n: number) => `Move ticket #${n}`,
  moved: (n: number, status: string) => `#${n} moved to ${status}.`,
  emptyTitle: 'Kanban',
  emptyText: 'Your tickets show here as cards in a column per status, ready to drag from one to the next.',
} as const;

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
  adminOnly: 'Kanban is for admins.',
} as const;

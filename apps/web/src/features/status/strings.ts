/** Status colours live in lib/ (the supervisory board shows them too). */
export { colorOf, statusColor } from '../../lib/statusColor';

export const t = {
  myStatus: 'My Status',
  reason: 'Reason',
  update: 'Update',
  teamActivity: 'Team activity',
  noActivity: 'Status changes of your team appear here as they happen.',
  onlineUsers: 'Online Users',
  onlineNow: 'Online now',
  lastSeen: (rel: string) => `Last seen ${rel}`,
  neverSeen: 'Not seen yet',
  youAre: (label: string) => `Your status is ${label}. Chats and tickets are not routed to you.`,
  customStatuses: 'Custom statuses',
  customStatusesHint: 'Statuses your agents can choose besides the built-in ones. Their time is recorded too.',
  addStatus: 'Add status',
  needsReason: 'Needs a reason',
  name: 'Name',
  remove: 'Remove',
  noCustom: 'No custom statuses yet.',
};

import { type AnnouncementMessage, rooms } from '@parley/contracts';

/** SHELL-37: `announcementMessage` goes to everyone in the account, and only there. */
export const announcementAudience = (accountId: number, _e: AnnouncementMessage) => ({
  name: 'announcementMessage',
  rooms: [rooms.account(accountId)],
});

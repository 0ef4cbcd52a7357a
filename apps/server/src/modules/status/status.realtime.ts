import { rooms, type StatusUpdated } from '@parley/contracts';

/** STATUS-04: a status change is seen by everyone in the account. */
export const statusUpdatedAudience = (accountId: number, _e: StatusUpdated) => ({
  name: 'statusUpdated',
  rooms: [rooms.account(accountId)],
});

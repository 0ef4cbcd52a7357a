import { type LabelsUpdated, rooms, type SettingsChanged } from '@parley/contracts';

/** `labelsUpdated` goes to everyone in the account, and only there. */
export const labelsAudience = (accountId: number, _e: LabelsUpdated) => ({
  name: 'labelsUpdated',
  rooms: [rooms.account(accountId)],
});

/** LABEL-20: `settingsChanged` goes to everyone in the account, and only there. */
export const settingsAudience = (accountId: number, _e: SettingsChanged) => ({
  name: 'settingsChanged',
  rooms: [rooms.account(accountId)],
});

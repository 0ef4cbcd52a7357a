import type { AccountSettings, Label, LabelItemInput } from '@parley/contracts';
import { api } from '../http';

export const labelsApi = {
  /** LABEL-12: every label of the account, removed ones flagged. */
  list: () => api<{ result: 'success'; data: Label[] }>('GET', '/api/label/get').then((r) => r.data),
  /** LABEL-09: saves the edited and new labels and removes `deleteIds`; answers the whole list. */
  update: (labelArray: LabelItemInput[], deleteIds: number[]) =>
    api<{ result: 'success'; description: string; data: Label[] }>('POST', '/api/label/update', {
      labelArray,
      delete: deleteIds,
    }),
  settings: () => api<{ result: 'success'; data: AccountSettings }>('GET', '/api/settings/get').then((r) => r.data),
  /** LABEL-17: `duration` is the days after which a Resolved ticket closes on its own. */
  updateDuration: (day: string) =>
    api<{ result: 'success'; description: string }>('POST', '/api/settings/update', { action: 'duration', day }),
};

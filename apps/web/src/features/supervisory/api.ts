import type { SupervisoryAnswer } from '@parley/contracts';
import { api } from '../../lib/http';

export const supervisoryApi = {
  /** The board's snapshot of the account (admins and users with view_report). */
  board: () => api<SupervisoryAnswer>('GET', '/api/supervisory').then((r) => r.data),
};

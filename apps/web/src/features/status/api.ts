import type { StatusUpdated, UpdateStatusInput } from '@parley/contracts';
import { api } from '../../lib/http';

export const statusApi = {
  update: (input: UpdateStatusInput) =>
    api<{ result: 'success'; data: StatusUpdated }>('POST', '/api/online_status/update', input),
};

import type { CustomStatus, OnlineUser, StatusUpdated, UpdateStatusInput } from '@parley/contracts';
import { api } from '../http';

export const statusApi = {
  update: (input: UpdateStatusInput) =>
    api<{ result: 'success'; data: StatusUpdated }>('POST', '/api/online_status/update', input),
  me: () => api<{ result: 'success'; data: OnlineUser[] }>('GET', '/api/status/me/get').then((r) => r.data[0] ?? null),
  online: () => api<{ result: 'success'; data: OnlineUser[] }>('GET', '/status/get').then((r) => r.data),
  customStatuses: () =>
    api<{ result: 'success'; data: CustomStatus[] }>('GET', '/api/customstatus/get').then((r) => r.data),
  createCustomStatus: (input: { name: string; needs_reason: boolean }) =>
    api<{ result: 'success'; data: CustomStatus }>('POST', '/api/customstatus', input),
  deleteCustomStatus: (id: number) => api<{ result: 'success' }>('DELETE', `/api/customstatus/${id}`),
};

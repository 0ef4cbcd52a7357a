import type {
  CannedReply,
  CannedReplyInput,
  Macro,
  MacroInput,
  MacroRunAnswer,
  MacroUndoAnswer,
  UserItem,
} from '@parley/contracts';
import { api } from '../../lib/http';

export const repliesApi = {
  /** The canned replies the user may use (shared and their own), optionally those offered on one channel. */
  canned: (channel?: string) =>
    api<{ result: 'success'; data: CannedReply[] }>(
      'GET',
      `/api/replies/canned${channel ? `?channel=${encodeURIComponent(channel)}` : ''}`,
    ).then((r) => r.data),
  createCanned: (input: CannedReplyInput) =>
    api<{ result: 'success'; data: CannedReply }>('POST', '/api/replies/canned', input).then((r) => r.data),
  updateCanned: (id: number, input: CannedReplyInput) =>
    api<{ result: 'success'; data: CannedReply }>('PUT', `/api/replies/canned/${id}`, input).then((r) => r.data),
  deleteCanned: (id: number) => api<{ result: 'success' }>('DELETE', `/api/replies/canned/${id}`),
  macros: () => api<{ result: 'success'; data: Macro[] }>('GET', '/api/macros').then((r) => r.data),
  createMacro: (input: MacroInput) =>
    api<{ result: 'success'; data: Macro }>('POST', '/api/macros', input).then((r) => r.data),
  updateMacro: (id: number, input: MacroInput) =>
    api<{ result: 'success'; data: Macro }>('PUT', `/api/macros/${id}`, input).then((r) => r.data),
  deleteMacro: (id: number) => api<{ result: 'success' }>('DELETE', `/api/macros/${id}`),
  runMacro: (id: number, ticketIds: number[]) =>
    api<MacroRunAnswer>('POST', `/api/macros/${id}/run`, { ticket_ids: ticketIds }),
  /** The account's users, for a macro's assignees (the macros screen is an admin's). */
  users: () => api<{ data: UserItem[] }>('GET', '/api/users').then((r) => r.data),
  undoRun: (runId: number) => api<MacroUndoAnswer>('POST', `/api/macros/runs/${runId}/undo`),
};

import type { AuditItem, CreateUserInput, SessionItem, UpdateUserInput, UserItem } from '@parley/contracts';
import { api } from '../../lib/http';

type Result = { result: string; description?: string };

export const settingsApi = {
  sessions: () => api<{ data: SessionItem[] }>('GET', '/api/user/sessions'),
  endSession: (id: number) => api<Result>('DELETE', `/api/user/sessions/${id}`),
  changePassword: (current: string, password: string) =>
    api<Result>('POST', '/api/user/password', { current, password }),
  tfaSetup: () => api<{ secret: string; uri: string; qr: string }>('POST', '/api/user/2fa/setup'),
  tfaEnable: (code: string) =>
    api<{ result: string; backup_codes: string[] }>('POST', '/api/user/2fa/enable', { code }),
  tfaDisable: (password: string) => api<Result>('POST', '/api/user/2fa/disable', { password }),
  users: () => api<{ data: UserItem[] }>('GET', '/api/users'),
  createUser: (input: CreateUserInput) => api<UserItem>('POST', '/api/users', input),
  updateUser: (id: number, input: UpdateUserInput) => api<UserItem>('PATCH', `/api/users/${id}`, input),
  setRequire2fa: (require_2fa: boolean) => api<Result>('PUT', '/api/account/security', { require_2fa }),
  audit: (before?: number) =>
    api<{ data: AuditItem[] }>('GET', `/api/audit?limit=50${before ? `&before=${before}` : ''}`),
};

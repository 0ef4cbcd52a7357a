import type {
  AuditAnswer,
  CreateUserInput,
  SessionItem,
  SetPhotoAnswer,
  UpdateUserInput,
  UploadAnswer,
  UserItem,
} from '@parley/contracts';
import { api, HttpError } from '../../lib/http';

type Result = { result: string; description?: string };

/** Audit log rows per page. */
export const AUDIT_PAGE = 25;

export const settingsApi = {
  sessions: () => api<{ data: SessionItem[] }>('GET', '/api/user/sessions'),
  endSession: (id: number) => api<Result>('DELETE', `/api/user/sessions/${id}`),
  changePassword: (current: string, password: string) =>
    api<Result>('POST', '/api/user/password', { current, password }),
  users: () => api<{ data: UserItem[] }>('GET', '/api/users'),
  createUser: (input: CreateUserInput) => api<UserItem>('POST', '/api/users', input),
  updateUser: (id: number, input: UpdateUserInput) => api<UserItem>('PATCH', `/api/users/${id}`, input),
  setRequire2fa: (require_2fa: boolean) => api<Result>('PUT', '/api/account/security', { require_2fa }),
  /** SHELL-51: one numbered page of the audit log, with the total. */
  audit: (page: number) => api<AuditAnswer>('GET', `/api/audit?limit=${AUDIT_PAGE}&page=${page}`),
};

/**
 * PROFILE-16: a new profile picture goes through the one upload pipeline (`POST /api/upload`: sniffed type,
 * thumbnail), then `PUT /api/user/photo` makes that upload the caller's picture.
 */
export async function uploadProfilePhoto(file: File): Promise<SetPhotoAnswer> {
  const form = new FormData();
  form.append('attachment[]', file, file.name);
  let res: Response;
  try {
    res = await fetch('/api/upload', { method: 'POST', credentials: 'include', body: form });
  } catch {
    throw new HttpError(0, 'Failed', null);
  }
  const body = (await res.json().catch(() => null)) as (UploadAnswer & { description?: string }) | null;
  if (!res.ok || !body?.file?.[0]) throw new HttpError(res.status, body?.description || 'Failed', body);
  return setProfilePhoto(body.file[0]);
}
export const setProfilePhoto = (file: string | null) => api<SetPhotoAnswer>('PUT', '/api/user/photo', { file });

import type {
  ContactAnswer,
  ContactFields,
  ContactListAnswer,
  CreateContactBody,
  IdentifierInput,
  ImportAnswer,
} from '@parley/contracts';
import { api } from '../../lib/http';

export interface ListFilter {
  keyword: string;
  filter: string;
  pagination: number;
  page: number;
}

export const contactsApi = {
  list: (f: ListFilter) => {
    const q = new URLSearchParams({
      keyword: f.keyword,
      filter: f.filter,
      pagination: String(f.pagination),
      page: String(f.page),
    });
    return api<ContactListAnswer>('GET', `/api/contacts/list?${q}`);
  },
  one: (id: number) => api<ContactAnswer>('GET', `/api/contacts/${id}`).then((r) => r.contact),
  create: (body: Partial<CreateContactBody>) => api<{ id: number }>('POST', '/api/contacts', body).then((r) => r.id),
  update: (id: number, body: Partial<ContactFields>) => api('PUT', `/api/contacts/${id}`, body),
  addIdentifier: (id: number, body: IdentifierInput) => api('POST', `/api/contacts/${id}/identifiers`, body),
  removeIdentifier: (id: number, identifierId: number) =>
    api('DELETE', `/api/contacts/${id}/identifiers/${identifierId}`),
  merge: (keptId: number, from: number) =>
    api<{ merge_id: number }>('POST', `/api/contacts/${keptId}/merge`, { from }).then((r) => r.merge_id),
  undoMerge: (mergeId: number) => api('POST', `/api/contacts/merges/${mergeId}/undo`),
  importCsv: (csv: string, dryRun: boolean) =>
    api<ImportAnswer>('POST', '/api/contacts/import', { csv, dry_run: dryRun }),
  /** The export downloads through the browser (the session cookie goes with it). */
  exportUrl: '/api/contacts/export',
  /** Admins: one contact's data as a ZIP (downloaded through the browser), and its erasure. */
  dataExportUrl: (id: number) => `/api/contacts/${id}/export`,
  erase: (id: number, confirm: string) => api('POST', `/api/contacts/${id}/erase`, { confirm }),
};

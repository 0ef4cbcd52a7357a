import type { CustomTabAnswer, FormDef, FormInput, FormsAnswer, PublicFormAnswer } from '@parley/contracts';
import { api } from '../../lib/http';

export const formsApi = {
  /** CONTACT-05: the Main tab's first page and the custom tabs. */
  main: () => api<FormsAnswer>('GET', '/api/forms'),
  /** CONTACT-06: page `index` (0-based) of a tab. */
  tab: (id: number, index: number) => api<CustomTabAnswer>('GET', `/api/contacts/custom?id=${id}&index=${index}`),
  settings: () => api<{ data: FormDef[] }>('GET', '/api/forms/settings').then((r) => r.data),
  create: (input: FormInput) => api<{ id: number }>('POST', '/api/forms/settings', input),
  update: (id: number, input: FormInput) => api('PUT', `/api/forms/settings/${id}`, input),
  remove: (id: number) => api('DELETE', `/api/forms/settings/${id}`),
  renew: (id: number) => api<{ token: string }>('POST', `/api/forms/settings/${id}/token`),
  publicForm: (token: string) => api<PublicFormAnswer>('GET', `/api/public/forms/${encodeURIComponent(token)}`),
  send: (token: string, values: Record<string, string>, website: string) =>
    api('POST', `/api/public/forms/${encodeURIComponent(token)}`, { values, website }),
};

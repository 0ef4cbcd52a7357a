import type { CaseDetail, CaseInput, CaseRow, OnlineUser } from '@parley/contracts';
import { api } from '../../lib/http';

export const casesApi = {
  list: (stage: string, mine: boolean, q: string) =>
    api<{ cases: CaseRow[] }>('GET', `/api/cases?${new URLSearchParams({ stage, mine: mine ? '1' : '0', q })}`).then(
      (r) => r.cases,
    ),
  one: (id: number) => api<{ case: CaseDetail }>('GET', `/api/cases/${id}`).then((r) => r.case),
  create: (input: Partial<CaseInput>) => api<{ case: CaseDetail }>('POST', '/api/cases', input).then((r) => r.case),
  update: (id: number, input: CaseInput) =>
    api<{ case: CaseDetail }>('PUT', `/api/cases/${id}`, input).then((r) => r.case),
  addTicket: (id: number, ticketNumber: number) =>
    api('POST', `/api/cases/${id}/tickets`, { ticket_number: ticketNumber }),
  removeTicket: (id: number, ticketId: number) => api('DELETE', `/api/cases/${id}/tickets/${ticketId}`),
  note: (id: number, text: string) => api('POST', `/api/cases/${id}/notes`, { text }),
  /** The account's people, for the owner picker. */
  team: () => api<{ data: OnlineUser[] }>('GET', '/status/get').then((r) => r.data),
};

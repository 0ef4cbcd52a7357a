import type { Mailbox, MailboxBody, MailboxListAnswer, MailboxTestAnswer } from '@parley/contracts';
import { api } from '../../lib/http';

type MailboxAnswer = { result: 'success'; data: Mailbox };

/** The mailboxes API (admins only; docs/email.md). */
export const mailboxesApi = {
  list: () => api<MailboxListAnswer>('GET', '/api/mailboxes'),
  create: (input: MailboxBody) => api<MailboxAnswer>('POST', '/api/mailboxes', input).then((r) => r.data),
  update: (id: number, input: MailboxBody) =>
    api<MailboxAnswer>('PUT', `/api/mailboxes/${id}`, input).then((r) => r.data),
  remove: (id: number) => api<{ result: 'success' }>('DELETE', `/api/mailboxes/${id}`),
  test: (id: number) => api<MailboxTestAnswer>('POST', `/api/mailboxes/${id}/test`),
  /** A new forwarding address; the old one is refused from now on. */
  renewForwarding: (id: number) => api<MailboxAnswer>('POST', `/api/mailboxes/${id}/forwarding`).then((r) => r.data),
};

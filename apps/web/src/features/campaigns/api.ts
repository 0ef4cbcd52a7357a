import {
  CAMPAIGN_PAGE_SIZE,
  type Campaign,
  type CampaignDetail,
  type CampaignSummary,
  TICKET_STATUS,
} from '@parley/contracts';
import { DEFAULT_FILTERS, ticketsApi } from '../../lib/api/tickets';
import { api } from '../../lib/http';

type Ok<T> = { result: 'success'; data: T };

export const campaignsApi = {
  /** TICKET-10: a page (from 1) of the account's campaigns, 5 a page, newest first. */
  list: (page: number) =>
    api<{ data: CampaignSummary[]; total: number }>(
      'GET',
      `/api/campaign/list?pagination=${CAMPAIGN_PAGE_SIZE}&page=${page}`,
    ),
  one: (id: number) => api<Ok<CampaignDetail>>('GET', `/api/campaign/${id}`).then((r) => r.data),
  create: (name: string) => api<Ok<Campaign>>('POST', '/api/campaign', { name }).then((r) => r.data),
  rename: (id: number, name: string) => api<Ok<Campaign>>('PUT', `/api/campaign/${id}`, { name }).then((r) => r.data),
  remove: (id: number) => api('DELETE', `/api/campaign/${id}`),
  /** The campaign's tickets in any status, through the ticket list's own campaign filter (30 a page). */
  tickets: (id: number, offset: number) =>
    ticketsApi.load({ ...DEFAULT_FILTERS, status: String(TICKET_STATUS.all), campaign: String(id) }, offset),
};

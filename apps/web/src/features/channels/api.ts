import type { ChannelAnswer, ChannelInput, ChannelListAnswer, ChannelTestAnswer } from '@parley/contracts';
import { api } from '../../lib/http';

/** The channel connections API (admins only). */
export const channelsApi = {
  list: () => api<ChannelListAnswer>('GET', '/api/channels'),
  create: (input: ChannelInput) => api<ChannelAnswer>('POST', '/api/channels', input).then((r) => r.data),
  update: (id: number, input: ChannelInput) =>
    api<ChannelAnswer>('PUT', `/api/channels/${id}`, input).then((r) => r.data),
  remove: (id: number) => api<{ result: 'success' }>('DELETE', `/api/channels/${id}`),
  /** The provider's own answer to the stored token (the number's or the bot's name, or its refusal). */
  test: (id: number) => api<ChannelTestAnswer>('POST', `/api/channels/${id}/test`).then((r) => r.data),
};

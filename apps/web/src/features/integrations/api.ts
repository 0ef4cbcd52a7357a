import type {
  ApiTokenCreatedAnswer,
  ApiTokenInput,
  ApiTokenListAnswer,
  WebhookCreatedAnswer,
  WebhookDeliveriesAnswer,
  WebhookInput,
  WebhookListAnswer,
} from '@parley/contracts';
import { api } from '../../lib/http';

/** API tokens (everyone's own; admins also the account's) and webhooks with their delivery log (admins). */
export const integrationsApi = {
  tokens: () => api<ApiTokenListAnswer>('GET', '/api/api_tokens').then((r) => r.data),
  createToken: (input: ApiTokenInput) => api<ApiTokenCreatedAnswer>('POST', '/api/api_tokens', input),
  revokeToken: (id: number) => api<{ result: 'success' }>('DELETE', `/api/api_tokens/${id}`),
  webhooks: () => api<WebhookListAnswer>('GET', '/api/webhooks').then((r) => r.data),
  createWebhook: (input: WebhookInput) => api<WebhookCreatedAnswer>('POST', '/api/webhooks', input),
  updateWebhook: (id: number, input: WebhookInput) => api<unknown>('PUT', `/api/webhooks/${id}`, input),
  removeWebhook: (id: number) => api<{ result: 'success' }>('DELETE', `/api/webhooks/${id}`),
  deliveries: (id: number) => api<WebhookDeliveriesAnswer>('GET', `/api/webhooks/${id}/deliveries`).then((r) => r.data),
  redeliver: (deliveryId: number) => api<unknown>('POST', `/api/webhooks/deliveries/${deliveryId}/redeliver`),
};

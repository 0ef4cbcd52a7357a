import {
  ApiTokenCreatedAnswer,
  ApiTokenInput,
  ApiTokenListAnswer,
  IntegrationIdParams,
  OkAnswer,
  WebhookAnswer,
  WebhookCreatedAnswer,
  WebhookDeliveriesAnswer,
  WebhookDeliveryAnswer,
  WebhookInput,
  WebhookListAnswer,
} from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DB } from '../../platform/db/db.js';
import { createApiToken, listApiTokens, refuseApiTokenCaller, revokeApiToken } from './apiTokens.js';
import { createWebhook, deleteWebhook, listDeliveries, listWebhooks, redeliver, updateWebhook } from './webhooks.js';
import type { AllowedWebhookHost } from './webhookUrl.js';

export interface IntegrationRouteDeps {
  db: DB;
  /** WEBHOOK_ALLOWED_HOSTS: hosts a webhook may name besides public https ones. */
  allowedHosts: readonly AllowedWebhookHost[];
}

/**
 * API tokens (everyone their personal ones, admins also the account's; managed only from a signed-in
 * session) and webhooks with their delivery log (admins).
 */
export function integrationRoutes(app: FastifyInstance, deps: IntegrationRouteDeps): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db, allowedHosts } = deps;
  const ok = 'success' as const;
  const tags = ['integrations'];

  r.get(
    '/api/api_tokens',
    { config: { auth: 'user' }, schema: { tags, response: { 200: ApiTokenListAnswer } } },
    async (req) => {
      refuseApiTokenCaller(req.auth!);
      return { result: ok, data: await listApiTokens(db, req.auth!) };
    },
  );
  r.post(
    '/api/api_tokens',
    { config: { auth: 'user' }, schema: { tags, body: ApiTokenInput, response: { 200: ApiTokenCreatedAnswer } } },
    async (req) => {
      refuseApiTokenCaller(req.auth!);
      const { item, token } = await createApiToken(db, req.auth!, req.body);
      return { result: ok, data: item, token };
    },
  );
  r.delete(
    '/api/api_tokens/:id',
    { config: { auth: 'user' }, schema: { tags, params: IntegrationIdParams, response: { 200: OkAnswer } } },
    async (req) => {
      refuseApiTokenCaller(req.auth!);
      await revokeApiToken(db, req.auth!, req.params.id);
      return { result: ok };
    },
  );

  r.get(
    '/api/webhooks',
    { config: { auth: 'admin' }, schema: { tags, response: { 200: WebhookListAnswer } } },
    async (req) => ({ result: ok, data: await listWebhooks(db, req.auth!.accountId) }),
  );
  r.post(
    '/api/webhooks',
    { config: { auth: 'admin' }, schema: { tags, body: WebhookInput, response: { 200: WebhookCreatedAnswer } } },
    async (req) => {
      const { item, secret } = await createWebhook(db, req.auth!, req.body, allowedHosts);
      return { result: ok, data: item, secret };
    },
  );
  r.put(
    '/api/webhooks/:id',
    {
      config: { auth: 'admin' },
      schema: { tags, params: IntegrationIdParams, body: WebhookInput, response: { 200: WebhookAnswer } },
    },
    async (req) => ({
      result: ok,
      data: await updateWebhook(db, req.auth!.accountId, req.params.id, req.body, allowedHosts),
    }),
  );
  r.delete(
    '/api/webhooks/:id',
    { config: { auth: 'admin' }, schema: { tags, params: IntegrationIdParams, response: { 200: OkAnswer } } },
    async (req) => {
      await deleteWebhook(db, req.auth!.accountId, req.params.id);
      return { result: ok };
    },
  );
  r.get(
    '/api/webhooks/:id/deliveries',
    {
      config: { auth: 'admin' },
      schema: { tags, params: IntegrationIdParams, response: { 200: WebhookDeliveriesAnswer } },
    },
    async (req) => ({ result: ok, data: await listDeliveries(db, req.auth!.accountId, req.params.id) }),
  );
  r.post(
    '/api/webhooks/deliveries/:id/redeliver',
    {
      config: { auth: 'admin' },
      schema: { tags, params: IntegrationIdParams, response: { 200: WebhookDeliveryAnswer } },
    },
    async (req) => ({ result: ok, data: await redeliver(db, req.auth!.accountId, req.params.id) }),
  );
}

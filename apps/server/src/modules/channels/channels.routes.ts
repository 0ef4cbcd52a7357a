import {
  CHANNEL_STRINGS,
  ChannelAnswer,
  ChannelIdParams,
  ChannelInput,
  ChannelListAnswer,
  ChannelTestAnswer,
  ChannelWindowAnswer,
  ErrorCode,
  OkAnswer,
  PrivateReplyInput,
  RetryDeliveryAnswer,
  RetryDeliveryInput,
  SendTemplateInput,
  SmsSendAnswer,
  SmsSendInput,
  SmsThreadsAnswer,
} from '@parley/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../platform/http/errors.js';
import { createConnection, deleteConnection, updateConnection } from './commands/saveConnection.js';
import { sendSms, smsThreads } from './commands/sms.js';
import { sendPrivateReply, sendTemplate, testConnection, ticketWindow } from './commands/useConnection.js';
import { kindsOnPlan, listConnections, toView, WEBHOOK_PATH } from './connections.js';
import { acceptWebhook, type InboundDeps, webhookHandshake } from './inbound.js';
import { retryChannelReply } from './outbound.js';

export interface ChannelRouteDeps extends InboundDeps {
  publicUrl: string | undefined;
  telegramApiUrl: string;
}

/** A webhook's body is read as it came (its signature is over the bytes); larger than 1 MB is refused. */
const WEBHOOK_MAX_BYTES = 1_048_576;
const KeyParams = z.object({
  key: z
    .string()
    .min(10)
    .max(64)
    .regex(/^[A-Za-z0-9_-]+$/),
});
const TicketParams = z.object({ ticketId: z.coerce.number().int().positive() });

/**
 * The full address a provider posted to, as it saw it: PUBLIC_URL's origin (and path) with the request's
 * path and query; without PUBLIC_URL, the request's own scheme and host (behind TRUST_PROXY, the proxy's).
 */
export function requestUrl(publicUrl: string | undefined, req: FastifyRequest): string {
  const base = publicUrl ? publicUrl.replace(/\/+$/, '') : `${req.protocol}://${req.host}`;
  return `${base}${req.url}`;
}

/**
 * Messaging channels: admins connect, change, test and remove provider accounts; providers post their
 * webhooks (public, proven by the adapter); agents retry a failed reply and send WhatsApp templates.
 */
export function channelRoutes(app: FastifyInstance, deps: ChannelRouteDeps): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db, secrets, publicUrl } = deps;
  const ok = 'success' as const;
  const save = { db, secrets, publicUrl };

  r.get(
    '/api/channels',
    { config: { auth: 'admin' }, schema: { response: { 200: ChannelListAnswer } } },
    async (req) => ({
      result: ok,
      configured: secrets !== null,
      ...(secrets ? {} : { description: CHANNEL_STRINGS.notConfigured }),
      ...(await kindsOnPlan(db, req.auth!.accountId)),
      data: (await listConnections(db, req.auth!.accountId)).map((row) => toView(row, publicUrl)),
    }),
  );
  r.post(
    '/api/channels',
    { config: { auth: 'admin' }, schema: { body: ChannelInput, response: { 200: ChannelAnswer } } },
    async (req) => ({ result: ok, data: await createConnection(save, req.auth!, req.body) }),
  );
  r.put(
    '/api/channels/:id',
    {
      config: { auth: 'admin' },
      schema: { params: ChannelIdParams, body: ChannelInput, response: { 200: ChannelAnswer } },
    },
    async (req) => ({ result: ok, data: await updateConnection(save, req.auth!, req.params.id, req.body) }),
  );
  r.delete(
    '/api/channels/:id',
    { config: { auth: 'admin' }, schema: { params: ChannelIdParams, response: { 200: OkAnswer } } },
    async (req) => {
      await deleteConnection(db, req.auth!, req.params.id);
      return { result: ok };
    },
  );
  r.post(
    '/api/channels/:id/test',
    { config: { auth: 'admin' }, schema: { params: ChannelIdParams, response: { 200: ChannelTestAnswer } } },
    async (req) => ({ result: ok, data: await testConnection(deps, req.auth!, req.params.id) }),
  );
  r.post(
    '/api/channels/message/retry',
    { config: { auth: 'user' }, schema: { body: RetryDeliveryInput, response: { 200: RetryDeliveryAnswer } } },
    async (req) => ({ result: ok, data: await retryChannelReply(db, deps.conversations, req.auth!, req.body.id) }),
  );
  r.post(
    '/api/channels/template',
    { config: { auth: 'user' }, schema: { body: SendTemplateInput, response: { 200: OkAnswer } } },
    async (req) => {
      await sendTemplate(deps, req.auth!, req.body);
      return { result: ok };
    },
  );
  r.post(
    '/api/channels/private-reply',
    { config: { auth: 'user' }, schema: { body: PrivateReplyInput, response: { 200: OkAnswer } } },
    async (req) => {
      await sendPrivateReply(deps, req.auth!, req.body);
      return { result: ok };
    },
  );
  r.get(
    '/api/sms/threads',
    { config: { auth: 'user' }, schema: { response: { 200: SmsThreadsAnswer } } },
    async (req) => ({ result: ok, ...(await smsThreads(db, req.auth!.accountId)) }),
  );
  r.post(
    '/api/sms/send',
    { config: { auth: 'user' }, schema: { body: SmsSendInput, response: { 200: SmsSendAnswer } } },
    async (req) => ({ result: ok, data: await sendSms(db, deps.conversations, req.auth!, req.body) }),
  );
  r.get(
    '/api/channels/window/:ticketId',
    { config: { auth: 'user' }, schema: { params: TicketParams, response: { 200: ChannelWindowAnswer } } },
    async (req) => ({ result: ok, data: await ticketWindow(deps, req.auth!, req.params.ticketId) }),
  );

  // The providers' side: bodies kept as text for the signature check.
  app.register(async (child) => {
    // Twilio posts forms (application/x-www-form-urlencoded): kept as text too, its signature is over the fields.
    child.addContentTypeParser(
      ['application/json', 'text/plain', 'application/x-www-form-urlencoded'],
      { parseAs: 'string' },
      (_req, body, done) => done(null, body),
    );
    const c = child.withTypeProvider<ZodTypeProvider>();
    c.get(
      WEBHOOK_PATH,
      { config: { auth: 'public' }, schema: { params: KeyParams, hide: true } },
      async (req, reply) => {
        const answer = await webhookHandshake(deps, req.params.key, req.query as Record<string, unknown>);
        return reply.code(200).header('x-content-type-options', 'nosniff').type(answer.type).send(answer.body);
      },
    );
    c.post(
      WEBHOOK_PATH,
      { config: { auth: 'public' }, bodyLimit: WEBHOOK_MAX_BYTES, schema: { params: KeyParams, hide: true } },
      async (req, reply) => {
        if (typeof req.body !== 'string') throw new AppError(400, ErrorCode.validation, CHANNEL_STRINGS.badPayload);
        const { taken, answer } = await acceptWebhook(deps, req.params.key, {
          rawBody: req.body,
          headers: req.headers as Record<string, string | string[] | undefined>,
          url: requestUrl(publicUrl, req),
        });
        if (answer) return reply.code(200).type(answer.contentType).send(answer.body);
        return { result: ok, taken };
      },
    );
  });
}

import {
  FcmKeyAnswer,
  FcmTokenAnswer,
  FcmTokenInput,
  NotificationCheckAnswer,
  NotificationGetAnswer,
  NotificationGetQuery,
  NotificationReadInput,
  NotificationRemoveInput,
  NotificationResultAnswer,
} from '@parley/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { DB } from '../../platform/db/db.js';
import { notFound } from '../../platform/http/errors.js';
import { markRead, removeNotification } from './commands/readRemove.js';
import { avatarPhoto, checkUnread, listNotifications, type Viewer } from './notifications.queries.js';
import { registerSubscription } from './push.js';
import type { AllowedPushHost } from './pushEndpoints.js';

const viewer = (req: FastifyRequest): Viewer => ({ accountId: req.auth!.accountId, userId: req.auth!.userId });

/** NOTIF-22..29, NOTIF-35: the notification calls; each user sees and changes only their own. */
export function notificationRoutes(
  app: FastifyInstance,
  deps: { db: DB; vapidPublicKey: string; pushAllowedHosts?: readonly AllowedPushHost[] },
): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db } = deps;

  // NOTIF-10, NOTIF-11: a notification's avatar (`avatarUrl` of the contracts): the picture of the account's
  // user `uid` (their username). `file_name` names the picture the notification was raised with; a user who
  // changed it since shows the current one. w and h are accepted; the picture is already a thumbnail.
  r.get(
    '/cdn/avatar/:uid/:file_name',
    {
      config: { auth: 'user' },
      schema: {
        params: z.object({ uid: z.string().min(1).max(100), file_name: z.string().min(1).max(100) }),
        querystring: z.object({
          w: z.coerce.number().int().min(1).max(1000).optional(),
          h: z.coerce.number().int().min(1).max(1000).optional(),
        }),
      },
    },
    async (req, reply) => {
      const photo = await avatarPhoto(db, req.auth!.accountId, req.params.uid);
      if (!photo) throw notFound('No picture.');
      return reply.header('cache-control', 'private, max-age=300').redirect(photo, 302);
    },
  );

  r.get(
    '/notification/check',
    { config: { auth: 'user' }, schema: { response: { 200: NotificationCheckAnswer } } },
    async (req) => checkUnread(db, viewer(req)),
  );
  r.get(
    '/notification/get',
    {
      config: { auth: 'user' },
      schema: { querystring: NotificationGetQuery, response: { 200: NotificationGetAnswer } },
    },
    async (req) =>
      listNotifications(db, viewer(req), {
        category: req.query.type,
        lastId: req.query.lastId,
        offset: req.query.offset,
      }),
  );
  r.post(
    '/api/notification/read',
    { config: { auth: 'user' }, schema: { body: NotificationReadInput, response: { 200: NotificationResultAnswer } } },
    async (req) => {
      await markRead(db, viewer(req), req.body);
      return { result: 'success' as const };
    },
  );
  r.post(
    '/api/notification/remove',
    {
      config: { auth: 'user' },
      schema: { body: NotificationRemoveInput, response: { 200: NotificationResultAnswer } },
    },
    async (req) => {
      await removeNotification(db, viewer(req), req.body.id);
      return { result: 'success' as const };
    },
  );
  r.post(
    '/api/fcm/token',
    { config: { auth: 'user' }, schema: { body: FcmTokenInput, response: { 200: FcmTokenAnswer } } },
    async (req) => {
      await registerSubscription(db, viewer(req), req.body, deps.pushAllowedHosts);
      return { result: 'success' as const };
    },
  );
  r.get('/api/fcm/key', { config: { auth: 'user' }, schema: { response: { 200: FcmKeyAnswer } } }, async () => ({
    result: 'success' as const,
    publicKey: deps.vapidPublicKey,
  }));
}

import { AnnouncementMessage, PublishAnnouncementInput } from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { type Clock, systemClock } from '../../platform/clock.js';
import type { DB } from '../../platform/db/db.js';
import { currentAnnouncement } from './announcements.queries.js';
import { publishAnnouncement } from './commands/publishAnnouncement.js';
import { removeAnnouncement } from './commands/removeAnnouncement.js';

/** `{ result, announcement }`: the announcement showing now (null when none), as the socket answers it. */
const AnnouncementAnswer = AnnouncementMessage.extend({ result: z.literal('success') });

/** SHELL-37, SHELL-38: admins publish and remove the account's announcement; everyone reads it. */
export function announcementRoutes(app: FastifyInstance, deps: { db: DB; clock?: Clock }): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db, clock = systemClock } = deps;

  r.get(
    '/api/announcement',
    { config: { auth: 'user' }, schema: { response: { 200: AnnouncementAnswer } } },
    async (req) => ({
      result: 'success' as const,
      announcement: await currentAnnouncement(db, req.auth!.accountId, clock()),
    }),
  );
  r.post(
    '/api/announcement',
    { config: { auth: 'admin' }, schema: { body: PublishAnnouncementInput, response: { 200: AnnouncementAnswer } } },
    async (req) => ({ result: 'success' as const, announcement: await publishAnnouncement(db, req.auth!, req.body) }),
  );
  r.delete(
    '/api/announcement',
    { config: { auth: 'admin' }, schema: { response: { 200: AnnouncementAnswer } } },
    async (req) => {
      await removeAnnouncement(db, req.auth!);
      return { result: 'success' as const, announcement: null };
    },
  );
}

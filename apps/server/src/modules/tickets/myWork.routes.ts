import {
  TicketBulkAnswer,
  TicketBulkInput,
  TicketQueueAnswer,
  TicketViewsAnswer,
  TicketViewsQuery,
} from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DB } from '../../platform/db/db.js';
import type { Conversations } from '../messages/messages.realtime.js';
import { bulkTickets } from './commands/bulkTickets.js';
import { myQueue, statusOfFilter, viewCounts } from './myWork.js';
import type { OpenCodesSeen } from './tickets.queries.js';

/** An agent's "my work": the list's view counts, the Home queue and bulk actions (docs/tickets.md). */
export function myWorkRoutes(
  app: FastifyInstance,
  deps: { db: DB; conversations: Conversations; seen: OpenCodesSeen; now?: () => number },
): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db, conversations, seen } = deps;
  const now = deps.now ?? Date.now;
  const viewer = (auth: NonNullable<import('fastify').FastifyRequest['auth']>) => ({
    accountId: auth.accountId,
    userId: auth.userId,
    username: auth.username,
  });

  r.get(
    '/api/ticket/views',
    { config: { auth: 'user' }, schema: { querystring: TicketViewsQuery, response: { 200: TicketViewsAnswer } } },
    async (req) => ({
      result: 'success' as const,
      data: await viewCounts(db, seen, viewer(req.auth!), statusOfFilter(req.query.filter)),
    }),
  );

  r.get(
    '/api/ticket/queue',
    { config: { auth: 'user' }, schema: { response: { 200: TicketQueueAnswer } } },
    async (req) => ({ result: 'success' as const, data: await myQueue(db, seen, viewer(req.auth!), now()) }),
  );

  r.post(
    '/api/ticket/bulk',
    { config: { auth: 'user' }, schema: { body: TicketBulkInput, response: { 200: TicketBulkAnswer } } },
    async (req) => ({
      result: 'success' as const,
      ...(await bulkTickets(db, conversations, seen, req.auth!, req.body)),
    }),
  );
}

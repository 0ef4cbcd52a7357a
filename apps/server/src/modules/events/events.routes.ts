import { EventsQuery, rooms } from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { DB } from '../../platform/db/db.js';
import { eventsAfter, headSeq } from '../../platform/outbox/index.js';

const LIMIT = 1000;

/** Catch-up over HTTP: the events after `after` that the caller's account and user rooms would have seen. */
export function eventsRoutes(app: FastifyInstance, deps: { db: DB }): void {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/api/events',
    {
      config: { auth: 'user' },
      schema: {
        querystring: EventsQuery,
        response: {
          200: z.object({
            events: z.array(z.object({ name: z.string(), seq: z.number(), data: z.unknown() })),
            head: z.number(),
            complete: z.boolean(),
          }),
        },
      },
    },
    async (req) => {
      const auth = req.auth!;
      const mine = new Set([rooms.account(auth.accountId), rooms.user(auth.userId)]);
      const events = await eventsAfter(deps.db, auth.accountId, req.query.after, LIMIT);
      const head = await headSeq(deps.db, auth.accountId);
      return {
        events: events
          .filter((e) => e.socketEvent && e.rooms.some((r) => mine.has(r)))
          .map((e) => ({ name: e.socketEvent as string, seq: e.seq, data: e.payload })),
        head: events.length === LIMIT ? (events.at(-1)?.seq ?? head) : head,
        complete: events.length < LIMIT,
      };
    },
  );
}

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
      // The head first (see realtime.ts): every event up to it is committed, so `head` is a confirmed floor.
      const head = await headSeq(deps.db, auth.accountId);
      const events = (await eventsAfter(deps.db, auth.accountId, req.query.after, LIMIT)).filter((e) => e.seq <= head);
      return {
        events: events
          .filter((e) => e.socketEvent && e.rooms.some((r) => mine.has(r)))
          .map((e) => ({ name: e.socketEvent as string, seq: e.seq, data: e.payload })),
        head: events.length === LIMIT ? (events.at(-1)?.seq ?? head) : Math.max(head, req.query.after),
        complete: events.length < LIMIT,
      };
    },
  );
}

import { OkAnswer, RescheduleInput, ScheduledAnswer, ScheduledListAnswer, ScheduleInput } from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { DB } from '../../platform/db/db.js';
import type { Conversations } from '../messages/index.js';
import { changeScheduled, listScheduled, scheduleMessage } from './scheduled.js';

const IdParams = z.object({ id: z.coerce.number().int().positive() });
const TicketParams = z.object({ ticketId: z.coerce.number().int().positive() });

/** Scheduled messages: schedule a reply, list a ticket's, change or cancel one before it goes. */
export function scheduledRoutes(app: FastifyInstance, deps: { db: DB; conversations: Conversations }): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db, conversations } = deps;
  const ok = 'success' as const;
  r.post(
    '/api/ticket/scheduled',
    { config: { auth: 'user' }, schema: { body: ScheduleInput, response: { 200: ScheduledAnswer } } },
    async (req) => ({ result: ok, data: await scheduleMessage(db, conversations, req.auth!, req.body) }),
  );
  r.get(
    '/api/ticket/scheduled/:ticketId',
    { config: { auth: 'user' }, schema: { params: TicketParams, response: { 200: ScheduledListAnswer } } },
    async (req) => ({ result: ok, data: await listScheduled(db, conversations, req.auth!, req.params.ticketId) }),
  );
  r.put(
    '/api/ticket/scheduled/:id',
    {
      config: { auth: 'user' },
      schema: { params: IdParams, body: RescheduleInput, response: { 200: ScheduledAnswer } },
    },
    async (req) => ({ result: ok, data: await changeScheduled(db, req.auth!, req.params.id, req.body) }),
  );
  r.delete(
    '/api/ticket/scheduled/:id',
    { config: { auth: 'user' }, schema: { params: IdParams, response: { 200: OkAnswer } } },
    async (req) => {
      await changeScheduled(db, req.auth!, req.params.id, null);
      return { result: ok };
    },
  );
}

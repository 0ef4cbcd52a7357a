import {
  TicketStatusAnswer,
  TicketStatusCreateInput,
  TicketStatusListAnswer,
  TicketStatusUpdateInput,
} from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { DB } from '../../platform/db/db.js';
import { createTicketStatus, deleteTicketStatus, listTicketStatuses, updateTicketStatus } from './ticketStatuses.js';

/**
 * TICKET-24, TICKET-25: custom ticket statuses. Everyone reads them (the list names statuses
 * by them); admins add, change and delete them in Settings. `/api/customstatus/get` is the agents' own
 * statuses (STATUS), so these live at `/api/ticketstatus/...`.
 */
export function ticketStatusRoutes(app: FastifyInstance, deps: { db: DB }): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db } = deps;
  r.get(
    '/api/ticketstatus/get',
    { config: { auth: 'user' }, schema: { response: { 200: TicketStatusListAnswer } } },
    async (req) => ({ result: 'success' as const, data: await listTicketStatuses(db, req.auth!.accountId) }),
  );
  r.post(
    '/api/ticketstatus',
    { config: { auth: 'admin' }, schema: { body: TicketStatusCreateInput, response: { 200: TicketStatusAnswer } } },
    async (req) => ({ result: 'success' as const, data: await createTicketStatus(db, req.auth!, req.body) }),
  );
  r.post(
    '/api/ticketstatus/update',
    { config: { auth: 'admin' }, schema: { body: TicketStatusUpdateInput, response: { 200: TicketStatusAnswer } } },
    async (req) => ({ result: 'success' as const, data: await updateTicketStatus(db, req.auth!, req.body) }),
  );
  r.delete(
    '/api/ticketstatus/:id',
    {
      config: { auth: 'admin' },
      schema: {
        params: z.object({ id: z.coerce.number().int().positive() }),
        response: { 200: z.object({ result: z.literal('success') }) },
      },
    },
    async (req) => {
      await deleteTicketStatus(db, req.auth!, req.params.id);
      return { result: 'success' as const };
    },
  );
}

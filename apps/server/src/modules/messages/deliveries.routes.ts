import { DELIVERIES_PAGE, FailedDeliveriesAnswer, FailedDeliveriesQuery, type FailedDelivery } from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DB } from '../../platform/db/db.js';

/**
 * The account's replies that could not be sent (a mailbox reply or a messaging reply marked failed), newest
 * first, 50 a page, for admins (Settings -> Channels). Read through the partial index of failed messages.
 */
export function deliveriesRoutes(app: FastifyInstance, deps: { db: DB }): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get(
    '/api/deliveries/failed',
    {
      config: { auth: 'admin' },
      schema: { querystring: FailedDeliveriesQuery, response: { 200: FailedDeliveriesAnswer } },
    },
    async (req) => {
      const accountId = req.auth!.accountId;
      let q = deps.db
        .selectFrom('messages as m')
        .innerJoin('tickets as t', (j) =>
          j.onRef('t.id', '=', 'm.ticket_id').onRef('t.account_id', '=', 'm.account_id'),
        )
        .select([
          'm.id',
          'm.ticket_id',
          't.ticket_number',
          't.title',
          't.channel',
          'm.message',
          'm.sender',
          'm.sender_name',
          'm.created_at',
          'm.email_state',
          'm.email_error',
          'm.delivery_error',
        ])
        .where('m.account_id', '=', accountId)
        .where((eb) => eb.or([eb('m.delivery_state', '=', 'failed'), eb('m.email_state', '=', 'failed')]))
        .where('m.deleted_at', 'is', null)
        .orderBy('m.id', 'desc')
        .limit(DELIVERIES_PAGE + 1);
      if (req.query.before !== undefined) q = q.where('m.id', '<', req.query.before);
      const rows = await q.execute();
      const data = rows.slice(0, DELIVERIES_PAGE).map(
        (m): FailedDelivery => ({
          id: Number(m.id),
          ticketId: Number(m.ticket_id),
          ticketNumber: Number(m.ticket_number),
          title: m.title,
          channel: m.channel,
          kind: m.email_state === 'failed' ? 'email' : 'channel',
          text: m.message
            .replace(/<[^>]*>/g, ' ')
            .replace(/\s+/g, ' ')
            .trim()
            .slice(0, 140),
          error: (m.email_state === 'failed' ? m.email_error : m.delivery_error) ?? '',
          sender: m.sender_name || m.sender,
          at: Number(m.created_at),
        }),
      );
      return { result: 'success' as const, data, more: rows.length > DELIVERIES_PAGE };
    },
  );
}

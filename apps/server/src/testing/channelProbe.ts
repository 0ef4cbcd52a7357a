import { expect } from 'vitest';
import type { DB } from '../platform/db/db.js';
import type { Call } from './api.js';
import { waitFor } from './waitFor.js';

/**
 * What the channel tests read back after a webhook or a reply: one account's tickets by their channel peer,
 * their messages, a reply's delivery, and whether every stored webhook has been handled. `db` and
 * `accountId` are read when called, so a suite can make this before its server and account exist.
 */
export function channelProbe(db: () => DB, accountId: () => number) {
  const delivery = (messageId: number) =>
    db()
      .selectFrom('messages')
      .select(['delivery_state', 'delivery_error'])
      .where('id', '=', messageId)
      .executeTakeFirstOrThrow();
  /** The relay's backoff made due now for `type`, so retries take a moment rather than seconds. */
  const hurry = (type: string) =>
    db()
      .updateTable('events')
      .set({ available_at: Date.now() })
      .where('account_id', '=', accountId())
      .where('type', '=', type)
      .where('delivered_at', 'is', null)
      .execute();
  return {
    /** The account's ticket with this peer (and channel, when given). */
    ticketOfPeer: (peer: string, channel?: string) => {
      let q = db()
        .selectFrom('tickets')
        .selectAll()
        .where('account_id', '=', accountId())
        .where('channel_peer', '=', peer);
      if (channel) q = q.where('channel', '=', channel);
      return q.executeTakeFirst();
    },
    /** A ticket's messages without the system lines, oldest first. */
    messagesOf: (ticketId: number) =>
      db()
        .selectFrom('messages')
        .select([
          'id',
          'type',
          'message',
          'sender',
          'sender_name',
          'files',
          'deleted_at',
          'delivery_state',
          'delivery_error',
        ])
        .where('account_id', '=', accountId())
        .where('ticket_id', '=', ticketId)
        .where('type', '!=', 'system')
        .orderBy('id')
        .execute(),
    delivery,
    stateOf: async (messageId: number) => (await delivery(messageId)).delivery_state,
    /** Webhooks stored, every account's: a refused one must not add to it. */
    webhookEvents: async () =>
      Number(
        (
          await db()
            .selectFrom('events')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('type', '=', 'channel.webhook_received')
            .executeTakeFirstOrThrow()
        ).n,
      ),
    allHandled: () =>
      waitFor(async () => {
        const events = await db()
          .selectFrom('events')
          .select('delivered_at')
          .where('account_id', '=', accountId())
          .where('type', '=', 'channel.webhook_received')
          .execute();
        return events.every((e) => e.delivered_at !== null);
      }, 'every webhook handled'),
    /** Waits for a reply to reach `state`, hurrying its retries. */
    settled: (messageId: number, state: string) =>
      waitFor(
        async () => {
          await hurry('channel.reply_queued');
          return (await delivery(messageId)).delivery_state === state;
        },
        state,
        20_000,
      ),
  };
}

/** An agent's reply on a ticket through the API; answers the new message's id. */
export function replier(call: () => Call, token: () => string) {
  return async (ticketId: number, message: string) => {
    const r = await call()('POST', '/api/ticket/message', { token: token(), body: { ticket_id: ticketId, message } });
    expect(r.status, r.text).toBe(200);
    return r.body.data.id as number;
  };
}

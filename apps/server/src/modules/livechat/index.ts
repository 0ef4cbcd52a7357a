/** Live chat from website visitors (issue 7: LIVECHAT, VISITOR). */
import { rooms } from '@parley/contracts';
import type pino from 'pino';
import type { DB } from '../../platform/db/db.js';
import type { Realtime } from '../../platform/realtime/realtime.js';
import type { Task } from '../../platform/scheduler.js';
import { registerAudience } from '../messages/index.js';
import { agentLiveChatSocket } from './agent.socket.js';
import { sweepOffers } from './offering.js';
import { visitorRoom } from './queue.js';
import { type LiveChatHub, visitorSocket } from './visitor.socket.js';

export { acceptLiveChat, convertLiveChat, endLiveChat, mergeSessions, removeParticipant } from './commands/agent.js';
export { liveChatInfo, rateChat, registerQueue, registerVisitor } from './commands/visitor.js';
export { listGroups, ratingOf } from './livechat.queries.js';
export { liveChatRoutes } from './livechat.routes.js';

import { livePlaces } from './livechat.routes.js';

export { offerNext, sweepOffers } from './offering.js';
export { ensureSettings } from './settings.js';
export type { LiveChatHub } from './visitor.socket.js';

/** A live chat's messages go to the account and to the visitor's own room (never another visitor's). */
for (const channel of ['LIVECHAT', 'livechat'])
  registerAudience(channel, async (trx, ticket) => {
    const chat = await trx
      .selectFrom('livechats')
      .select('visitor_id')
      .where('account_id', '=', ticket.accountId)
      .where('ticket_id', '=', ticket.id)
      .executeTakeFirst();
    const out = [rooms.account(ticket.accountId)];
    if (chat) out.push(visitorRoom(Number(chat.visitor_id)));
    return out;
  });

/** The visitor namespace, the agents' queue events, and the relay listener that reaches visitors. */
export function liveChatRealtime(realtime: Realtime, db: DB, log: pino.Logger): LiveChatHub {
  const hub = visitorSocket(realtime, db, log);
  livePlaces.notify = hub.placesChanged;
  realtime.onConnection(agentLiveChatSocket(db, hub));
  return hub;
}

/** Offers not accepted in time go to the next agent (automatic offering). */
export const sweepOffersTask = (db: DB): Task => ({
  name: 'sweepLiveChatOffers',
  everyMs: 1_000,
  run: async () => {
    await sweepOffers(db);
  },
});

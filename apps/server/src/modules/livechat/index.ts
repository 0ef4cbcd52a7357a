/** Live chat from website visitors (LIVECHAT, VISITOR). */
import { rooms } from '@parley/contracts';
import type pino from 'pino';
import type { DB } from '../../platform/db/db.js';
import type { Listener } from '../../platform/outbox/index.js';
import type { Realtime } from '../../platform/realtime/realtime.js';
import type { Task } from '../../platform/scheduler.js';
import { type ConversationRule, type Conversations, staffConversation } from '../messages/index.js';
import { agentLiveChatSocket } from './agent.socket.js';
import { offerOnStatus, sweepOffers } from './offering.js';
import { visitorRoom } from './queue.js';
import { type VisitorLimits, visitorLimits } from './rateLimit.js';
import { type LiveChatHub, visitorSocket } from './visitor.socket.js';

export { acceptLiveChat, convertLiveChat, endLiveChat, mergeSessions, removeParticipant } from './commands/agent.js';
export { liveChatInfo, rateChat, registerQueue, registerVisitor } from './commands/visitor.js';
export { listGroups } from './livechat.queries.js';
export { liveChatRoutes } from './livechat.routes.js';

export { offerNext, offerOnStatus, sweepOffers } from './offering.js';
/** How many chats each user of the account is running (the seats the plan's concurrent limit counts). */
export { announceQueue, openChatCounts } from './queue.js';
export { clientIp, type VisitorLimits } from './rateLimit.js';
export { ensureSettings } from './settings.js';
export type { LiveChatHub } from './visitor.socket.js';

/** A live chat's rule, under both stored spellings of its channel code. */
const liveChatConversation: ConversationRule = {
  /** A live chat's messages go to the account and to the visitor's own room (never another visitor's). */
  audience: async (trx, ticket) => {
    const chat = await trx
      .selectFrom('livechats')
      .select('visitor_id')
      .where('account_id', '=', ticket.accountId)
      .where('ticket_id', '=', ticket.id)
      .executeTakeFirst();
    const out = [rooms.account(ticket.accountId)];
    if (chat) out.push(visitorRoom(Number(chat.visitor_id)));
    return out;
  },
  /** Any user of the account may read a live chat, as any ticket. */
  access: staffConversation.access,
};
export const liveChatConversations: Record<string, ConversationRule> = {
  LIVECHAT: liveChatConversation,
  livechat: liveChatConversation,
};

/**
 * The visitor namespace, the agents' queue events, the relay listener that reaches visitors, and the one
 * that offers chats when agents come Online. `limits` are the routes' (one budget per IP for both).
 */
export function liveChatRealtime(
  realtime: Realtime,
  db: DB,
  conversations: Conversations,
  log: pino.Logger,
  limits: VisitorLimits = visitorLimits(false),
): LiveChatHub & { offerListener: Listener } {
  const hub = visitorSocket(realtime, db, conversations, log, limits);
  realtime.onConnection(agentLiveChatSocket(db, conversations, hub));
  return { ...hub, offerListener: offerOnStatus(db, log) };
}

/** Offers not accepted in time go to the next agent (automatic offering). */
export const sweepOffersTask = (db: DB): Task => ({
  name: 'sweepLiveChatOffers',
  everyMs: 1_000,
  run: async () => {
    await sweepOffers(db);
  },
});

import {
  type AcceptAnswer,
  LIVECHAT_STRINGS,
  type LiveChatEnded,
  type LiveChatMerged,
  type LiveChatState,
  type ParticipantChangedEvent,
  type RemoveLiveChat,
  rooms,
  TICKET_STATUS,
  type TicketUpdated,
} from '@parley/contracts';
import type { Selectable } from 'kysely';
import type { AuthContext } from '../../../platform/auth/sessions.js';
import type { DB } from '../../../platform/db/db.js';
import { lockUser } from '../../../platform/db/locks.js';
import type { LiveChatsTable } from '../../../platform/db/schema.js';
import { conflict, forbidden, notFound } from '../../../platform/http/errors.js';
import { appendEvent, runCommand, type Trx } from '../../../platform/outbox/index.js';
import { requirePlanFeature, requireWithinPlan } from '../../accounts/index.js';
import { type Conversations, postMessage } from '../../messages/index.js';
import { insertNumberedTicket, ticketAudience, ticketItem } from '../../tickets/index.js';
import { reoffer, withdrawOffers } from '../offering.js';
import { visitorRoom } from '../queue.js';

type Who = Pick<AuthContext, 'accountId' | 'userId' | 'username' | 'name' | 'type'>;

/**
 * LIVECHAT-05, LIVECHAT-06, LIVECHAT-21/22: an agent accepts a queued chat (a given one, or Take one:
 * the oldest not offered to someone else). Exactly one agent wins a race: the state moves from queued to
 * chatting only where it still is queued. The plan's concurrent limit is checked with the agent's own
 * row locked, so one agent accepting two chats at once cannot pass it either. The LIVECHAT ticket is
 * created, assigned to the agent, with the visitor's first message; the visitor gets `queueAccepted`.
 */
export async function acceptLiveChat(
  db: DB,
  conversations: Conversations,
  who: Who,
  id: number | null,
  /** How many waiting chats Take one reads at a time (tests make it small to force the walk). */
  window = 20,
): Promise<AcceptAnswer> {
  try {
    return await runCommand(db, async (trx) => {
      await lockUser(trx, who.accountId, who.userId);
      const mine = await requireWithinPlan(trx, who.accountId, 'concurrentChats', async () =>
        Number(
          (
            await trx
              .selectFrom('livechats')
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .where('account_id', '=', who.accountId)
              .where('state', '=', 'chatting')
              .where('agent', '=', who.username)
              .executeTakeFirstOrThrow()
          ).n,
        ),
      );

      let q = trx
        .selectFrom('livechats')
        .selectAll()
        .where('account_id', '=', who.accountId)
        .where('state', '=', 'queued');
      q =
        id === null
          ? q.where((eb) => eb.or([eb('offered_user_id', 'is', null), eb('offered_user_id', '=', who.userId)]))
          : q.where('id', '=', id);
      // Take one walks the queue past chats other agents win meanwhile (Postgres: their row was locked, then no
      // longer queued), a window at a time, until it wins one or nothing waits; a given id is that chat or nothing.
      const now = Date.now();
      let chat: Selectable<LiveChatsTable> | undefined;
      let after = 0;
      while (!chat) {
        const candidates = await (id === null ? q.where('id', '>', after) : q)
          .orderBy('id')
          .limit(id === null ? window : 1)
          .execute();
        if (candidates.length === 0) {
          if (id === null) throw conflict(LIVECHAT_STRINGS.queueEmpty);
          const exists = await trx
            .selectFrom('livechats')
            .select('id')
            .where('account_id', '=', who.accountId)
            .where('id', '=', id)
            .executeTakeFirst();
          throw exists ? conflict(LIVECHAT_STRINGS.taken) : notFound(LIVECHAT_STRINGS.notFound);
        }
        for (const c of candidates) {
          const won = await trx
            .updateTable('livechats')
            .set({ state: 'chatting', agent: who.username, accepted_at: now, offered_user_id: null, offered_at: null })
            .where('id', '=', c.id)
            .where('state', '=', 'queued')
            .executeTakeFirst();
          if (Number(won.numUpdatedRows) === 1) {
            chat = c;
            break;
          }
        }
        // A given chat went to another agent meanwhile.
        if (!chat && id !== null) throw conflict(LIVECHAT_STRINGS.taken);
        after = Number(candidates.at(-1)!.id);
      }

      // Assigned to the accepting agent at once.
      const ticketId = await insertNumberedTicket(trx, who.accountId, {
        channel: 'LIVECHAT',
        title: chat.name.slice(0, 300),
        name: chat.name,
        email: chat.email,
        phone: chat.phone,
        department_id: chat.department_id === null ? null : Number(chat.department_id),
        assignee: who.username,
        other: JSON.stringify(chat.ic ? { ic: chat.ic } : {}),
      });
      await trx.updateTable('livechats').set({ ticket_id: ticketId }).where('id', '=', chat.id).execute();
      await postMessage(trx, conversations, {
        accountId: who.accountId,
        ticketId,
        sender: 'visitor',
        senderName: chat.name,
        type: 'text',
        message: chat.message,
        fromCustomer: true,
      });
      await appendEvent(trx, {
        accountId: who.accountId,
        type: 'livechat.accepted',
        payload: { ticket_id: ticketId, livechat_id: Number(chat.id), agent: who.username },
        realtime: { name: 'queueAccepted', rooms: [visitorRoom(Number(chat.visitor_id))] },
      });
      // An agent now at the limit gives up any other offer it holds.
      const atLimit = mine.limit !== null && mine.used + 1 >= mine.limit;
      if (atLimit) await withdrawOffers(trx, who.accountId, who.userId);
      await reoffer(trx, who.accountId, now, true);
      return { ok: true as const, ticket_id: ticketId, livechat_id: Number(chat.id) };
    });
  } catch (err) {
    const e = err as { status?: number; message?: string };
    if (e.status && e.status < 500) return { ok: false, error: e.message ?? LIVECHAT_STRINGS.taken };
    throw err;
  }
}

/** The live chat of a ticket, in the caller's account. */
async function chatOfTicket(trx: Trx, accountId: number, ticketId: number) {
  const chat = await trx
    .selectFrom('livechats')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('ticket_id', '=', ticketId)
    .executeTakeFirst();
  if (!chat) throw notFound(LIVECHAT_STRINGS.notFound);
  return chat;
}

async function tellTicket(trx: Trx, accountId: number, ticketId: number) {
  const { read: _r, newMessage: _n, ...item } = await ticketItem(trx, { accountId, userId: 0 }, ticketId);
  await appendEvent(trx, {
    accountId,
    type: 'ticket.updated',
    payload: item satisfies TicketUpdated,
    realtime: ticketAudience(accountId, item),
  });
}

async function finish(trx: Trx, conversations: Conversations, who: Who, ticketId: number, state: LiveChatState) {
  const chat = await chatOfTicket(trx, who.accountId, ticketId);
  if (chat.state !== 'chatting') throw conflict(LIVECHAT_STRINGS.notRunning);
  await trx
    .updateTable('livechats')
    .set({ state, ended_at: Date.now() })
    .where('id', '=', chat.id)
    .where('state', '=', 'chatting')
    .execute();
  // Ended: resolved; converted: an open MANUAL ticket the team answers by e-mail or phone.
  await trx
    .updateTable('tickets')
    .set(
      state === 'ended'
        ? { closed: TICKET_STATUS.resolved, updated_at: Date.now() }
        : { channel: 'MANUAL', updated_at: Date.now() },
    )
    .where('account_id', '=', who.accountId)
    .where('id', '=', ticketId)
    .execute();
  await postMessage(trx, conversations, {
    accountId: who.accountId,
    ticketId,
    sender: 'server',
    senderName: 'Parley',
    type: 'system',
    message:
      state === 'ended' ? `${who.name} ended the live chat.` : `${who.name} converted the live chat to a ticket.`,
    fromCustomer: false,
  });
  const payload: LiveChatEnded = { ticket_id: ticketId, livechat_id: Number(chat.id), state };
  await appendEvent(trx, {
    accountId: who.accountId,
    type: 'livechat.ended',
    payload,
    realtime: { name: 'liveChatEnded', rooms: [rooms.account(who.accountId), visitorRoom(Number(chat.visitor_id))] },
  });
  await tellTicket(trx, who.accountId, ticketId);
  // A seat is free again: what waits may be offered to this agent.
  await reoffer(trx, who.accountId, Date.now());
  return payload;
}

/** LIVECHAT-07, LIVECHAT-08: the agent ends the chat; the visitor goes to the rating view. */
export const endLiveChat = (db: DB, conversations: Conversations, who: Who, ticketId: number) =>
  runCommand(db, (trx) => finish(trx, conversations, who, ticketId, 'ended'));

/**
 * VISITOR-16: the chat becomes a ticket; the visitor sees "Live Chat Converted" and may rate it. PLAN-21:
 * Basic and up; below, refused with the way up and nothing changes.
 */
export const convertLiveChat = (db: DB, conversations: Conversations, who: Who, ticketId: number) =>
  runCommand(db, async (trx) => {
    // Another account's chat (or none) is not found, whatever this account's plan.
    await chatOfTicket(trx, who.accountId, ticketId);
    await requirePlanFeature(trx, who.accountId, 'convertToTicket', LIVECHAT_STRINGS.convertNotOnPlan);
    return finish(trx, conversations, who, ticketId, 'converted');
  });

/**
 * LIVECHAT-09, LIVECHAT-10 (design): merges visitor session `ref_id` into `session_id`: every chat of
 * the merged session joins the target group. One `livechat.merged` event per chat moved (the event list
 * shows them as merge_session).
 */
export async function mergeSessions(db: DB, who: Who, sessionId: number, refId: number) {
  return runCommand(db, async (trx) => {
    if (sessionId === refId) throw conflict('A session cannot be merged into itself.');
    const target = await trx
      .selectFrom('livechats')
      .select('id')
      .where('account_id', '=', who.accountId)
      .where('session_id', '=', sessionId)
      .executeTakeFirst();
    const moved = await trx
      .selectFrom('livechats')
      .select(['id', 'ticket_id'])
      .where('account_id', '=', who.accountId)
      .where('session_id', '=', refId)
      .execute();
    if (!target || moved.length === 0) throw notFound(LIVECHAT_STRINGS.notFound);
    await trx
      .updateTable('livechats')
      .set({ session_id: sessionId })
      .where('account_id', '=', who.accountId)
      .where('session_id', '=', refId)
      .execute();
    const out: LiveChatMerged[] = [];
    for (const m of moved) {
      if (m.ticket_id === null) continue;
      const payload = { ticket_id: Number(m.ticket_id), session_id: sessionId, ref_id: refId };
      out.push(payload);
      await appendEvent(trx, {
        accountId: who.accountId,
        type: 'livechat.merged',
        payload: { ...payload, by: who.username },
        realtime: { name: 'liveChatMerged', rooms: [rooms.account(who.accountId)] },
      });
    }
    return out;
  });
}

/**
 * LIVECHAT-11, LIVECHAT-14, LIVECHAT-15: an agent is removed from a live chat (by an admin, or leaves
 * it). The ticket's assignee drops the name, everyone gets `participantChanged`, and the removed agent
 * gets `removeLiveChat` (its app goes home if that chat is open). A removed agent frees its seat.
 */
export async function removeParticipant(db: DB, who: Who, ticketId: number, username: string) {
  return runCommand(db, async (trx) => {
    if (who.type !== 'admin' && who.username !== username) throw forbidden();
    const chat = await chatOfTicket(trx, who.accountId, ticketId);
    const ticket = await trx
      .selectFrom('tickets')
      .select('assignee')
      .where('account_id', '=', who.accountId)
      .where('id', '=', ticketId)
      .executeTakeFirstOrThrow();
    const before = ticket.assignee
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    if (!before.includes(username) && chat.agent !== username) throw notFound('Not a participant.');
    const participants = before.filter((u) => u !== username);
    await trx
      .updateTable('tickets')
      .set({ assignee: participants.join(','), updated_at: Date.now() })
      .where('account_id', '=', who.accountId)
      .where('id', '=', ticketId)
      .execute();
    if (chat.agent === username)
      await trx
        .updateTable('livechats')
        .set({ agent: participants[0] ?? '' })
        .where('id', '=', chat.id)
        .execute();
    const user = await trx
      .selectFrom('users')
      .select('id')
      .where('account_id', '=', who.accountId)
      .where('username', '=', username)
      .executeTakeFirst();
    const changed: ParticipantChangedEvent = { ticketId, participants, removed: [username] };
    await appendEvent(trx, {
      accountId: who.accountId,
      type: 'livechat.participants',
      payload: changed,
      realtime: { name: 'participantChanged', rooms: [rooms.account(who.accountId)] },
    });
    if (user) {
      const removal: RemoveLiveChat = { ticket_id: ticketId, username };
      await appendEvent(trx, {
        accountId: who.accountId,
        type: 'livechat.removed',
        payload: removal,
        realtime: { name: 'removeLiveChat', rooms: [rooms.user(Number(user.id))] },
      });
    }
    await tellTicket(trx, who.accountId, ticketId);
    return changed;
  });
}

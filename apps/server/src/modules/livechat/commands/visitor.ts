import {
  LIVECHAT_QUEUED,
  LIVECHAT_STRINGS,
  type LiveChatInfoAnswer,
  type LiveChatQueued,
  type LiveChatState,
  VISITOR_STRINGS,
  type VisitorForm,
  type VisitorMessage,
} from '@parley/contracts';
import type { DB } from '../../../platform/db/db.js';
import { lockAccount } from '../../../platform/db/locks.js';
import { badRequest, conflict } from '../../../platform/http/errors.js';
import { appendEvent, runCommand } from '../../../platform/outbox/index.js';
import { type Conversations, postMessage } from '../../messages/index.js';
import { insertNumberedTicket, TICKET_RATED, type TicketRated } from '../../tickets/index.js';
import { toVisitorMessage } from '../livechat.queries.js';
import { offerNext } from '../offering.js';
import { announceQueue, onlineAgents } from '../queue.js';
import {
  accountByToken,
  hashSecret,
  invalidLink,
  latestChat,
  newSecret,
  type TokenAccount,
  visitorByCsrf,
  visitorOf,
} from '../settings.js';
import { visitorMaySend } from '../transcript.js';

/**
 * VISITOR-11, VISITOR-13: what the page shows. A browser without a (known) csrf gets a new visitor
 * session; one with a csrf is told where its latest chat stands.
 */
export async function liveChatInfo(
  db: DB,
  token: string,
  csrf: string | undefined,
  o: { mailConfigured?: boolean } = {},
): Promise<LiveChatInfoAnswer> {
  const account = await accountByToken(db, token);
  if (!account) throw invalidLink();
  const base = { name: account.name, photo: null, ticket_id: null, queued: false };
  const known = csrf ? await visitorByCsrf(db, account.accountId, csrf) : undefined;
  if (known && csrf) {
    const chat = await latestChat(db, account.accountId, known.id);
    const ticketId = chat?.ticket_id == null ? null : Number(chat.ticket_id);
    const state = chat?.state as LiveChatState | undefined;
    // PLAN-21 (design): the ended views offer the transcript when it may be sent.
    const transcript = chat ? visitorMaySend(Number(account.plan), o.mailConfigured ?? false, chat) : false;
    if (state === 'chatting') return { ...base, result: 'success', ticket_id: ticketId, csrf };
    if (state === 'queued') return { ...base, result: 'success', csrf, queued: true };
    if (state === 'converted')
      return { ...base, result: chat?.rated_at ? 'closed' : 'converted', ticket_id: ticketId, csrf, transcript };
    if (state === 'ended')
      return { ...base, result: chat?.rated_at ? 'closed' : 'rating', ticket_id: ticketId, csrf, transcript };
    if (state === 'offline') return { ...base, result: 'closed', ticket_id: ticketId, csrf };
  }
  const fresh = known && csrf ? csrf : await newVisitor(db, account.accountId);
  const online = await onlineAgents(db, account.accountId, account.departmentId);
  return { ...base, result: online.length > 0 ? 'success' : 'noAgent', csrf: fresh };
}

async function newVisitor(db: DB, accountId: number): Promise<string> {
  const csrf = newSecret();
  await db
    .insertInto('livechat_visitors')
    .values({ account_id: accountId, csrf_hash: hashSecret(csrf), created_at: Date.now() })
    .execute();
  return csrf;
}

/**
 * VISITOR-21: joins the queue with the form. A visitor already queued or chatting gets its current
 * chat back (a reconnect registers again); otherwise a new queued chat is added and announced.
 */
export async function registerQueue(db: DB, token: string, csrf: string, form: VisitorForm, browser = '') {
  return runCommand(db, async (trx) => {
    const { account, visitor } = await visitorOf(trx, token, csrf);
    // Joins of one account take turns (`lockAccount`): ids then rise in commit order, so a visitor's place
    // read after commit is final and never grows when an earlier id commits later (seen on Postgres with
    // 30 visitors at once: two were told the same number).
    await lockAccount(trx, account.accountId);
    const chat = await latestChat(trx, account.accountId, visitor.id);
    if (chat && (chat.state === 'queued' || chat.state === 'chatting'))
      return { account, visitorId: visitor.id, livechatId: Number(chat.id), ticketId: nullableId(chat.ticket_id) };
    const row = await trx
      .insertInto('livechats')
      .values({
        account_id: account.accountId,
        visitor_id: visitor.id,
        session_id: visitor.id,
        state: 'queued',
        name: form.name.trim(),
        phone: form.phone.trim(),
        email: form.email.trim(),
        ic: form.ic?.trim() ?? '',
        message: form.message,
        department_id: account.departmentId,
        queued_at: Date.now(),
        page: form.page?.trim() ?? '',
        browser: browser.slice(0, 500),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await trx.updateTable('livechat_visitors').set({ name: form.name.trim() }).where('id', '=', visitor.id).execute();
    if (account.autoOffer) await offerNext(trx, account, Date.now());
    await announceQueue(trx, account.accountId);
    // For listeners outside the agents' screens (webhooks): this chat joined the queue. No socket event.
    await appendEvent(trx, {
      accountId: account.accountId,
      type: LIVECHAT_QUEUED,
      payload: {
        livechat_id: Number(row.id),
        name: form.name.trim(),
        email: form.email.trim(),
        phone: form.phone.trim(),
        message: form.message,
        department_id: account.departmentId,
      } satisfies LiveChatQueued,
    });
    return { account, visitorId: visitor.id, livechatId: Number(row.id), ticketId: null };
  });
}

const nullableId = (v: number | null) => (v === null ? null : Number(v));

/**
 * VISITOR-32: `register`. After `queueAccepted` it confirms the chat (its ticket exists: the agent's
 * accept made it). With `api=false` (the offline variant, VISITOR-19) it leaves a message instead: a
 * MANUAL ticket with the visitor's details and the message, answered by e-mail or phone.
 */
export async function registerVisitor(
  db: DB,
  conversations: Conversations,
  input: {
    _token: string;
    token: string;
    title: string;
    email: string;
    phone: string;
    name: string;
    des: string;
    ic?: string;
  },
  offline: boolean,
) {
  return runCommand(db, async (trx) => {
    const { account, visitor } = await visitorOf(trx, input.token, input._token);
    const chat = await latestChat(trx, account.accountId, visitor.id);
    if (!offline) {
      if (!chat || chat.state !== 'chatting' || chat.ticket_id === null) throw conflict(LIVECHAT_STRINGS.notRunning);
      return Number(chat.ticket_id);
    }
    if (chat && (chat.state === 'queued' || chat.state === 'chatting')) throw conflict(LIVECHAT_STRINGS.notRunning);
    const ticketId = await insertNumberedTicket(trx, account.accountId, {
      channel: 'MANUAL',
      title: input.title.trim().slice(0, 300),
      name: input.name.trim(),
      email: input.email.trim(),
      phone: input.phone.trim(),
      department_id: account.departmentId,
    });
    await trx
      .insertInto('livechats')
      .values({
        account_id: account.accountId,
        visitor_id: visitor.id,
        session_id: visitor.id,
        state: 'offline',
        name: input.name.trim(),
        phone: input.phone.trim(),
        email: input.email.trim(),
        ic: input.ic?.trim() ?? '',
        message: input.des,
        department_id: account.departmentId,
        ticket_id: ticketId,
        queued_at: Date.now(),
        ended_at: Date.now(),
      })
      .execute();
    await postMessage(trx, conversations, {
      accountId: account.accountId,
      ticketId,
      sender: 'visitor',
      senderName: input.name.trim(),
      type: 'text',
      message: input.des,
      fromCustomer: true,
    });
    return ticketId;
  });
}

/** VISITOR-36..41: the rating of the visitor's latest ended or converted chat, once. */
export async function rateChat(db: DB, input: { _token: string; token: string; rating: number; reason: string }) {
  return runCommand(db, async (trx) => {
    const { account, visitor } = await visitorOf(trx, input.token, input._token);
    const chat = await latestChat(trx, account.accountId, visitor.id);
    if (!chat || (chat.state !== 'ended' && chat.state !== 'converted') || chat.ticket_id === null)
      throw conflict(LIVECHAT_STRINGS.notRunning);
    if (chat.rated_at !== null) throw conflict(VISITOR_STRINGS.rated);
    const reason = input.reason.trim();
    await trx
      .updateTable('livechats')
      .set({ rating: input.rating, reason, rated_at: Date.now() })
      .where('id', '=', chat.id)
      .where('rated_at', 'is', null)
      .execute();
    const rated: TicketRated = { id: Number(chat.ticket_id), rating: input.rating };
    await appendEvent(trx, { accountId: account.accountId, type: TICKET_RATED, payload: rated });
    return { ticket_id: Number(chat.ticket_id), rating: input.rating, reason };
  });
}

/** A visitor's message (plain text) in its running chat; the same clientId twice makes one message. */
export async function visitorSend(
  db: DB,
  conversations: Conversations,
  who: { account: TokenAccount; visitorId: number },
  input: { message: string; clientId?: string },
): Promise<VisitorMessage> {
  return runCommand(db, async (trx) => {
    const chat = await latestChat(trx, who.account.accountId, who.visitorId);
    if (!chat || chat.state !== 'chatting' || chat.ticket_id === null) throw conflict(LIVECHAT_STRINGS.notRunning);
    const ticketId = Number(chat.ticket_id);
    if (input.clientId) {
      const existing = await trx
        .selectFrom('messages')
        .selectAll()
        .where('account_id', '=', who.account.accountId)
        .where('client_id', '=', input.clientId)
        .executeTakeFirst();
      if (existing) {
        if (Number(existing.ticket_id) !== ticketId) throw badRequest('This message id is already used.');
        return toVisitorMessage(existing);
      }
    }
    const e = await postMessage(trx, conversations, {
      accountId: who.account.accountId,
      ticketId,
      sender: 'visitor',
      senderName: chat.name,
      type: 'text',
      message: input.message,
      clientId: input.clientId ?? null,
      fromCustomer: true,
    });
    return {
      id: e.id,
      ticketId,
      sender: e.sender,
      senderName: e.senderName,
      type: e.type,
      message: e.message,
      ts: e.created_at,
      clientId: e.client_id,
    };
  });
}

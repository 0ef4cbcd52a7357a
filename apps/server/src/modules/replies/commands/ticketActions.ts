import {
  fillReplyVariables,
  isEmailChannel,
  isLiveChatChannel,
  type MacroAction,
  type replyValues,
} from '@parley/contracts';
import type { Trx } from '../../../platform/outbox/index.js';
import { type Conversations, mailboxOf, postMessage } from '../../messages/index.js';
import {
  type Actor,
  assignTicketIn,
  setTicketLabelsIn,
  setTicketPriorityIn,
  setTicketStatusIn,
} from '../../tickets/index.js';

/** The properties a macro changes and its undo restores. */
export interface TicketState {
  closed: number;
  label: number[];
  assignee: string[];
  priority: string;
}
export type Field = keyof TicketState;

export const labelsOf = (json: string): number[] => {
  try {
    const v = JSON.parse(json) as unknown;
    return Array.isArray(v) ? v.filter((x): x is number => typeof x === 'number') : [];
  } catch {
    return [];
  }
};
export const assigneesOf = (s: string) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
const sameSet = <T>(a: T[], b: T[]) => a.length === b.length && a.every((x) => b.includes(x));

/**
 * Why a reply by a macro or a rule cannot go to this ticket: an e-mail ticket without the mailbox it came in
 * through or without the customer's address (`no_way_out`), or an ended live chat (`chat_ended`); null: it can.
 */
export async function replyBlocked(
  trx: Trx,
  accountId: number,
  t: { id: number; channel: string; email: string },
): Promise<'no_way_out' | 'chat_ended' | null> {
  if (isEmailChannel(t.channel) && ((await mailboxOf(trx, accountId, t.id)) === null || t.email === ''))
    return 'no_way_out';
  if (isLiveChatChannel(t.channel)) {
    const chat = await trx
      .selectFrom('livechats')
      .select('state')
      .where('account_id', '=', accountId)
      .where('ticket_id', '=', t.id)
      .orderBy('id', 'desc')
      .executeTakeFirst();
    if (chat?.state === 'ended') return 'chat_ended';
  }
  return null;
}

/** Who applies an action: the actor of ticket changes, and the sender of a reply. */
export interface ActionBy {
  actor: Actor;
  sender: string;
  senderName: string;
}

/**
 * One macro action on one ticket, through the ticket's and the messages' own commands (system messages,
 * audit, `updateTicket`, `newMessage`, exactly as by hand); used by macro runs and automation rules. `now` is
 * the ticket's state as the earlier actions left it, and is updated. Answers the field it changed, the id of
 * the message it sent, or null when the action would change nothing (so it is skipped). The caller has
 * checked that a reply can go out (an e-mail ticket with a mailbox and an address; no ended live chat).
 */
export async function applyTicketAction(
  trx: Trx,
  conversations: Conversations,
  by: ActionBy,
  t: { id: number | string; channel: string; title: string; email: string },
  a: MacroAction,
  now: TicketState,
  values: ReturnType<typeof replyValues>,
): Promise<Field | number | null> {
  const { actor } = by;
  const id = Number(t.id);
  const channel = t.channel;
  const email = isEmailChannel(channel);
  switch (a.type) {
    case 'reply': {
      const sent = await postMessage(trx, conversations, {
        accountId: actor.accountId,
        ticketId: id,
        sender: by.sender,
        senderName: by.senderName,
        type: 'text',
        message: fillReplyVariables(a.text, values),
        fromCustomer: false,
        channel,
        ...(email ? { email: { to: [t.email], cc: [], subject: `Re: ${t.title}` }, emailOut: true } : {}),
      });
      return Number(sent.id);
    }
    case 'status':
      if (now.closed === a.status) return null;
      await setTicketStatusIn(trx, conversations, actor, { id, status: a.status });
      now.closed = a.status;
      return 'closed';
    case 'add_labels':
    case 'remove_labels': {
      const next =
        a.type === 'add_labels'
          ? [...now.label, ...a.labels.filter((l) => !now.label.includes(l))]
          : now.label.filter((l) => !a.labels.includes(l));
      if (sameSet(next, now.label)) return null;
      await setTicketLabelsIn(trx, conversations, actor, { id, label: next });
      now.label = next;
      return 'label';
    }
    case 'assignee': {
      const lower = (xs: string[]) => xs.map((x) => x.trim().toLowerCase());
      if (sameSet(lower(a.assignee), lower(now.assignee))) return null;
      const { item } = await assignTicketIn(trx, conversations, actor, { id, assignee: a.assignee });
      now.assignee = assigneesOf(item.assignee);
      return 'assignee';
    }
    case 'priority':
      if (now.priority === a.priority) return null;
      await setTicketPriorityIn(trx, actor, { id, priority: a.priority });
      now.priority = a.priority;
      return 'priority';
  }
}

import {
  ErrorCode,
  fillReplyVariables,
  isEmailChannel,
  isLiveChatChannel,
  LIVECHAT_STRINGS,
  type MacroAction,
  type MacroRunAnswer,
  REPLY_STRINGS,
  replyValues,
} from '@parley/contracts';
import type { AuthContext } from '../../../platform/auth/sessions.js';
import type { DB } from '../../../platform/db/db.js';
import { AppError, notFound } from '../../../platform/http/errors.js';
import { appendEvent, runCommand, type Trx } from '../../../platform/outbox/index.js';
import { type Conversations, mailboxOf, postMessage } from '../../messages/index.js';
import {
  actorOf,
  assignTicketIn,
  setTicketLabelsIn,
  setTicketPriorityIn,
  setTicketStatusIn,
} from '../../tickets/index.js';
import { toMacro } from '../replies.queries.js';
import { checkMacroActions } from './saveMacro.js';

/** The properties a macro changes and its undo restores. */
export interface TicketState {
  closed: number;
  label: number[];
  assignee: string[];
  priority: string;
}
export type Field = keyof TicketState;

/** What a run did to one ticket: its state before, the fields it changed, the messages it sent. */
export interface TicketChangeRecord {
  ticket_id: number;
  before: TicketState;
  changed: Field[];
  messages: number[];
}

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

async function readTicket(trx: Trx, accountId: number, id: number) {
  return trx
    .selectFrom('tickets')
    .select(['id', 'ticket_number', 'title', 'name', 'email', 'channel', 'closed', 'label', 'assignee', 'priority'])
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/**
 * Runs a macro on tickets, all in one transaction: every ticket must be one the user may open (else 404
 * naming it) and everything the macro names must still exist (else 400 naming it); then each action goes
 * through the ticket's and the messages' own commands (system messages, audit, `updateTicket`, `newMessage`,
 * exactly as if done by hand). An action that would change nothing is skipped. The run is stored with each
 * ticket's state before it, for undo.
 */
export async function runMacro(
  db: DB,
  conversations: Conversations,
  auth: AuthContext,
  macroId: number,
  ticketIds: number[],
): Promise<MacroRunAnswer['data'] & { description: string }> {
  const ids = [...new Set(ticketIds)];
  return runCommand(db, async (trx) => {
    const row = await trx
      .selectFrom('macros')
      .select(['id', 'name', 'actions', 'updated_at'])
      .where('account_id', '=', auth.accountId)
      .where('id', '=', macroId)
      .executeTakeFirst();
    if (!row) throw notFound(REPLY_STRINGS.macroNotFound);
    const macro = toMacro(row);
    await checkMacroActions(trx, auth.accountId, macro.actions);
    const hasReply = macro.actions.some((a) => a.type === 'reply');
    const tickets = [];
    for (const id of ids) {
      const t = await readTicket(trx, auth.accountId, id);
      if (!t || !(await conversations.canRead(trx, { id, accountId: auth.accountId, channel: t.channel }, auth.userId)))
        throw notFound(REPLY_STRINGS.ticketNotFound(id));
      // An e-mail ticket takes a macro's reply only when it can leave by mail: from the mailbox the ticket came
      // in through (sent after commit with retries, as a reply by hand there), to the customer's address.
      const mailbox = hasReply && isEmailChannel(t.channel) ? await mailboxOf(trx, auth.accountId, id) : null;
      if (hasReply && isEmailChannel(t.channel) && (mailbox === null || t.email === ''))
        throw new AppError(400, ErrorCode.validation, REPLY_STRINGS.noEmailReply(Number(t.ticket_number)));
      // As for a reply by hand: an ended live chat takes no more messages.
      if (hasReply && isLiveChatChannel(t.channel)) {
        const chat = await trx
          .selectFrom('livechats')
          .select('state')
          .where('account_id', '=', auth.accountId)
          .where('ticket_id', '=', id)
          .orderBy('id', 'desc')
          .executeTakeFirst();
        if (chat?.state === 'ended') throw new AppError(409, 'LIVECHAT_ENDED', LIVECHAT_STRINGS.endedNoSend);
      }
      tickets.push(t);
    }
    const records: TicketChangeRecord[] = [];
    let replies = 0;
    for (const t of tickets) {
      const id = Number(t.id);
      const before: TicketState = {
        closed: Number(t.closed),
        label: labelsOf(t.label),
        assignee: assigneesOf(t.assignee),
        priority: t.priority,
      };
      const now: TicketState = { ...before, label: [...before.label], assignee: [...before.assignee] };
      const changed = new Set<Field>();
      const messages: number[] = [];
      const values = replyValues(
        { ticket_number: Number(t.ticket_number), title: t.title, name: t.name, email: t.email },
        auth,
      );
      for (const a of macro.actions) {
        const done = await apply(trx, auth, t, a, now, values);
        if (typeof done === 'number') {
          messages.push(done);
          replies++;
        } else if (done) changed.add(done);
      }
      records.push({ ticket_id: id, before, changed: [...changed], messages });
    }
    const run = await trx
      .insertInto('macro_runs')
      .values({
        account_id: auth.accountId,
        macro_id: macro.id,
        user_id: auth.userId,
        changes: JSON.stringify(records),
        created_at: Date.now(),
        undone_at: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const runId = Number(run.id);
    await appendEvent(trx, {
      accountId: auth.accountId,
      type: 'macro.ran',
      payload: { id: runId, macro_id: macro.id, by: auth.userId, tickets: ids },
    });
    return { run_id: runId, tickets: ids, replies, description: REPLY_STRINGS.ran(ids.length) };
  });

  /** One action on one ticket: the field it changed, the id of the message it sent, or null for no change. */
  async function apply(
    trx: Trx,
    auth: AuthContext,
    t: { id: number | string; channel: string; title: string; email: string },
    a: MacroAction,
    now: TicketState,
    values: ReturnType<typeof replyValues>,
  ): Promise<Field | number | null> {
    const actor = actorOf(auth);
    const id = Number(t.id);
    const channel = t.channel;
    // Checked above: an e-mail ticket here has a mailbox and a customer address.
    const email = isEmailChannel(channel);
    switch (a.type) {
      case 'reply': {
        const sent = await postMessage(trx, conversations, {
          accountId: auth.accountId,
          ticketId: id,
          sender: auth.username,
          senderName: auth.name || auth.username,
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
        await setTicketPriorityIn(trx, auth, { id, priority: a.priority });
        now.priority = a.priority;
        return 'priority';
    }
  }
}

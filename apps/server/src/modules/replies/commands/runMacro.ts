import { ErrorCode, LIVECHAT_STRINGS, type MacroRunAnswer, REPLY_STRINGS, replyValues } from '@parley/contracts';
import type { AuthContext } from '../../../platform/auth/sessions.js';
import type { DB } from '../../../platform/db/db.js';
import { AppError, notFound } from '../../../platform/http/errors.js';
import { appendEvent, runCommand, type Trx } from '../../../platform/outbox/index.js';
import type { Conversations } from '../../messages/index.js';
import { actorOf } from '../../tickets/index.js';
import { toMacro } from '../replies.queries.js';
import { checkMacroActions } from './saveMacro.js';
import {
  applyTicketAction,
  assigneesOf,
  type Field,
  labelsOf,
  replyBlocked,
  type TicketState,
} from './ticketActions.js';

/** What a run did to one ticket: its state before, the fields it changed, the messages it sent. */
export interface TicketChangeRecord {
  ticket_id: number;
  before: TicketState;
  changed: Field[];
  messages: number[];
}

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
      // in through (sent after commit with retries, as a reply by hand there), to the customer's address. As for
      // a reply by hand: an ended live chat takes no more messages.
      const blocked = hasReply ? await replyBlocked(trx, auth.accountId, { ...t, id }) : null;
      if (blocked === 'no_way_out')
        throw new AppError(400, ErrorCode.validation, REPLY_STRINGS.noEmailReply(Number(t.ticket_number)));
      if (blocked === 'chat_ended') throw new AppError(409, 'LIVECHAT_ENDED', LIVECHAT_STRINGS.endedNoSend);
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
      const by = { actor: actorOf(auth), sender: auth.username, senderName: auth.name || auth.username };
      const values = replyValues(
        { ticket_number: Number(t.ticket_number), title: t.title, name: t.name, email: t.email },
        auth,
      );
      for (const a of macro.actions) {
        const done = await applyTicketAction(trx, conversations, by, t, a, now, values);
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
}

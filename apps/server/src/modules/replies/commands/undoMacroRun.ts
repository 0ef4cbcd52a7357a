import { type MacroUndoAnswer, REPLY_STRINGS, TICKET_STATUS } from '@parley/contracts';
import type { AuthContext } from '../../../platform/auth/sessions.js';
import type { DB } from '../../../platform/db/db.js';
import { conflict, notFound } from '../../../platform/http/errors.js';
import { appendEvent, runCommand } from '../../../platform/outbox/index.js';
import type { Conversations } from '../../messages/index.js';
import {
  actorOf,
  assignTicketIn,
  listTicketStatuses,
  setTicketLabelsIn,
  setTicketPriorityIn,
  setTicketStatusIn,
} from '../../tickets/index.js';
import type { TicketChangeRecord } from './runMacro.js';
import { assigneesOf, labelsOf } from './ticketActions.js';

/**
 * Undoes the user's last macro run (another's run, or an unknown one, is not found; an older one of theirs is
 * a 409): each ticket's status, labels, assignees and priority that the run changed go back to what they
 * were, through the same commands (so the undo is itself posted, audited and sent live). What has gone since
 * is left out rather than failing the undo: a label removed or a user deactivated meanwhile, a custom status
 * deleted. Replies the run sent stay: a sent reply cannot be unsent, and the answer says so.
 */
export async function undoMacroRun(
  db: DB,
  conversations: Conversations,
  auth: AuthContext,
  runId: number,
): Promise<MacroUndoAnswer['data'] & { description: string }> {
  return runCommand(db, async (trx) => {
    const run = await trx
      .selectFrom('macro_runs')
      .select(['id', 'changes', 'undone_at'])
      .where('account_id', '=', auth.accountId)
      .where('user_id', '=', auth.userId)
      .where('id', '=', runId)
      .executeTakeFirst();
    if (!run) throw notFound(REPLY_STRINGS.runNotFound);
    const last = await trx
      .selectFrom('macro_runs')
      .select('id')
      .where('account_id', '=', auth.accountId)
      .where('user_id', '=', auth.userId)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirstOrThrow();
    if (Number(last.id) !== runId) throw conflict(REPLY_STRINGS.notLastRun);
    if (run.undone_at !== null) throw conflict(REPLY_STRINGS.alreadyUndone);
    const records = JSON.parse(run.changes) as TicketChangeRecord[];
    const actor = actorOf(auth);
    const restored: number[] = [];
    let kept = 0;
    const custom = await listTicketStatuses(trx, auth.accountId);
    const liveLabels = new Set(
      (
        await trx
          .selectFrom('labels')
          .select('id')
          .where('account_id', '=', auth.accountId)
          .where('removed', '=', 0)
          .execute()
      ).map((r) => Number(r.id)),
    );
    const activeUsers = new Set(
      (
        await trx
          .selectFrom('users')
          .select('username')
          .where('account_id', '=', auth.accountId)
          .where('active', '=', 1)
          .execute()
      ).map((r) => r.username),
    );
    for (const r of records) {
      kept += r.messages.length;
      const t = await trx
        .selectFrom('tickets')
        .select(['closed', 'label', 'assignee', 'priority'])
        .where('account_id', '=', auth.accountId)
        .where('id', '=', r.ticket_id)
        .executeTakeFirst();
      if (!t || r.changed.length === 0) continue;
      const id = r.ticket_id;
      const b = r.before;
      if (r.changed.includes('closed') && Number(t.closed) !== b.closed)
        if (b.closed <= TICKET_STATUS.closed || custom.some((c) => c.status_code === b.closed))
          await setTicketStatusIn(trx, conversations, actor, { id, status: b.closed });
      if (r.changed.includes('label')) {
        const label = b.label.filter((l) => liveLabels.has(l));
        if (JSON.stringify(labelsOf(t.label)) !== JSON.stringify(label))
          await setTicketLabelsIn(trx, conversations, actor, { id, label });
      }
      if (r.changed.includes('assignee')) {
        const assignee = b.assignee.filter((u) => activeUsers.has(u));
        if (assigneesOf(t.assignee).join(',') !== assignee.join(','))
          await assignTicketIn(trx, conversations, actor, { id, assignee });
      }
      if (r.changed.includes('priority') && t.priority !== b.priority)
        await setTicketPriorityIn(trx, auth, { id, priority: b.priority as 'H' | 'M' | 'L' | '' });
      restored.push(id);
    }
    await trx
      .updateTable('macro_runs')
      .set({ undone_at: Date.now() })
      .where('account_id', '=', auth.accountId)
      .where('id', '=', runId)
      .execute();
    await appendEvent(trx, {
      accountId: auth.accountId,
      type: 'macro.undone',
      payload: { id: runId, by: auth.userId, tickets: restored },
    });
    return {
      tickets: restored,
      replies_kept: kept,
      description: kept > 0 ? REPLY_STRINGS.replyKept(kept) : REPLY_STRINGS.undone,
    };
  });
}

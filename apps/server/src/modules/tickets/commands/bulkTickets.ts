import {
  ASSIGN_STRINGS,
  BULK_MAX,
  isLiveChatChannel,
  rooms,
  TICKET_STATUS,
  TICKET_STRINGS,
  type TicketBulkInput,
  TicketLoadQuery,
  type TicketsMerged,
  WORK_STRINGS,
  WORKSPACE_CHANNEL,
} from '@parley/contracts';
import type { AuthContext } from '../../../platform/auth/sessions.js';
import type { DB } from '../../../platform/db/db.js';
import { badRequest, notFound } from '../../../platform/http/errors.js';
import { appendEvent, runCommand, type Trx } from '../../../platform/outbox/index.js';
import type { Conversations } from '../../messages/messages.realtime.js';
import { statusOfFilter } from '../myWork.js';
import type { OpenCodesSeen } from '../tickets.queries.js';
import { loadTickets, visibleTo } from '../tickets.queries.js';
import { actorOf, assignPlan, changeTicketIn, departmentPlan, type Plan, statusPlan } from './changeTicket.js';
import { setTicketPriorityIn } from './setTicketPriority.js';

/**
 * The tickets a bulk request names: its ids (duplicates dropped), or every ticket of the ticket list matching
 * its filter ("select all N matching"), which must be at most `BULK_MAX` (else 400, nothing changed).
 */
async function targetIds(db: DB, seen: OpenCodesSeen, auth: AuthContext, input: TicketBulkInput): Promise<number[]> {
  if (input.ids) return [...new Set(input.ids)];
  const filter = input.filter!;
  const status = statusOfFilter(filter.status);
  const query = TicketLoadQuery.safeParse(filter.query);
  if (!query.success) throw badRequest(query.error.issues[0]?.message ?? TICKET_STRINGS.badFilter);
  const viewer = { accountId: auth.accountId, userId: auth.userId };
  const page = await loadTickets(
    db,
    viewer,
    { status, type: 'ticket', offset: 0, limit: BULK_MAX, query: query.data },
    seen,
  );
  if (page.count > BULK_MAX) throw badRequest(WORK_STRINGS.tooMany(page.count));
  if (page.data.length === 0) throw badRequest(WORK_STRINGS.nothingMatches);
  return page.data.map((t) => t.id);
}

/** Every id must be a ticket of the caller's account that the caller may see; else 404 and nothing changes. */
async function assertTickets(trx: Trx, auth: AuthContext, ids: number[]) {
  const viewer = { accountId: auth.accountId, userId: auth.userId };
  const rows = await trx
    .selectFrom('tickets')
    .select(['id', 'channel', 'ticket_number', 'last_message_at', 'has_responded', 'attachment'])
    .where('account_id', '=', auth.accountId)
    .where('id', 'in', ids)
    .where((eb) => visibleTo(eb, viewer))
    .execute();
  if (rows.length !== ids.length) throw notFound(TICKET_STRINGS.notFound);
  return new Map(rows.map((r) => [Number(r.id), r]));
}

/** Add or remove labels on each ticket, keeping its other labels; a ticket that already has it is unchanged. */
async function labelPlan(trx: Trx, auth: AuthContext, add: boolean, wanted: number[]): Promise<Plan> {
  const ids = [...new Set(wanted)];
  const labels = await trx
    .selectFrom('labels')
    .select(['id', 'name', 'removed'])
    .where('account_id', '=', auth.accountId)
    .where('id', 'in', ids)
    .execute();
  const byId = new Map(labels.map((l) => [Number(l.id), l]));
  // Adding takes labels in use only; removing also takes off a removed label a ticket still carries.
  for (const labelId of ids) {
    const l = byId.get(labelId);
    if (!l || (add && Number(l.removed) === 1)) throw badRequest(ASSIGN_STRINGS.unknownLabel(labelId));
  }
  const actor = auth.name || auth.username;
  return async (_trx, current) => {
    const touched = ids.filter((x) => current.label.includes(x) !== add);
    if (touched.length === 0) return null;
    const next = add ? [...current.label, ...touched] : current.label.filter((x) => !touched.includes(x));
    const names = touched.map((x) => byId.get(x)!.name);
    return {
      set: { label: JSON.stringify(next) },
      message: add ? WORK_STRINGS.labelsAdded(actor, names) : WORK_STRINGS.labelsRemoved(actor, names),
      action: 'ticket.labels_set',
      detail: { label: next, bulk: true },
    };
  };
}

/**
 * Merge (beyond the spec): the other tickets' messages (with their notes, reactions and uploads) move under
 * the primary ticket, which takes the latest customer-message time and the replied and attachment flags of
 * them all; each other ticket is closed with a system note pointing at the primary ("X merged this ticket
 * into #N."), and the primary gets "X merged #A, #B into this ticket.". `updateTicket` for every one of
 * them, `newMessage` for the notes and `ticketsMerged` (open conversations load again) tell open screens.
 * Live chats and Workspace chats cannot be merged.
 */
async function mergeTickets(
  trx: Trx,
  conversations: Conversations,
  auth: AuthContext,
  ids: number[],
  primary: number,
): Promise<number> {
  const others = ids.filter((x) => x !== primary);
  if (others.length === 0)
    throw badRequest(ids.includes(primary) ? WORK_STRINGS.mergeItself : WORK_STRINGS.mergeNeedsOthers);
  const rows = await assertTickets(trx, auth, [primary, ...others]);
  for (const r of rows.values())
    if (isLiveChatChannel(r.channel) || r.channel === WORKSPACE_CHANNEL) throw badRequest(WORK_STRINGS.mergeChannel);
  const actor = actorOf(auth);
  const by = auth.name || auth.username;
  const main = rows.get(primary)!;
  for (const other of others) {
    for (const table of ['messages', 'message_notes', 'message_reactions', 'uploads'] as const)
      await trx
        .updateTable(table)
        .set({ ticket_id: primary })
        .where('account_id', '=', auth.accountId)
        .where('ticket_id', '=', other)
        .execute();
    await changeTicketIn(trx, conversations, actor, other, async () => ({
      set: { closed: TICKET_STATUS.closed },
      message: WORK_STRINGS.mergedAway(by, Number(main.ticket_number)),
      action: 'ticket.merged',
      detail: { into: primary },
    }));
  }
  const all = [...rows.values()];
  await changeTicketIn(trx, conversations, actor, primary, async () => ({
    set: {
      last_message_at: Math.max(...all.map((r) => Number(r.last_message_at))),
      has_responded: all.some((r) => Number(r.has_responded) === 1) ? 1 : 0,
      attachment: all.some((r) => Number(r.attachment) === 1) ? 1 : 0,
    },
    message: WORK_STRINGS.mergedInto(
      by,
      others.map((x) => Number(rows.get(x)!.ticket_number)),
    ),
    action: 'ticket.merged',
    detail: { merged: others },
  }));
  await appendEvent(trx, {
    accountId: auth.accountId,
    type: 'ticket.merged',
    payload: { ticketId: primary, merged: others } satisfies TicketsMerged,
    realtime: { name: 'ticketsMerged', rooms: [rooms.account(auth.accountId)] },
  });
  return others.length + 1;
}

/**
 * `POST /api/ticket/bulk`: one action on up to `BULK_MAX` tickets, through the same changes as the
 * one-ticket calls (system message, audit, `updateTicket` each), all in one transaction: a refusal on any
 * ticket (an unknown user, label, department or status) changes none of them.
 */
export async function bulkTickets(
  db: DB,
  conversations: Conversations,
  seen: OpenCodesSeen,
  auth: AuthContext,
  input: TicketBulkInput,
): Promise<{ ids: number[]; changed: number }> {
  const ids = await targetIds(db, seen, auth, input);
  return runCommand(db, async (trx) => {
    if (input.action === 'merge')
      return { ids, changed: await mergeTickets(trx, conversations, auth, ids, input.value) };
    await assertTickets(trx, auth, ids);
    let changed = 0;
    if (input.action === 'priority') {
      for (const id of ids) await setTicketPriorityIn(trx, auth, { id, priority: input.value });
      return { ids, changed: ids.length };
    }
    const plan: Plan =
      input.action === 'assign'
        ? assignPlan(auth, input.value)
        : input.action === 'status'
          ? statusPlan(auth, input.value)
          : input.action === 'department'
            ? departmentPlan(auth, input.value)
            : await labelPlan(trx, auth, input.action === 'addLabels', input.value);
    for (const id of ids) if ((await changeTicketIn(trx, conversations, actorOf(auth), id, plan)).changed) changed++;
    return { ids, changed };
  });
}

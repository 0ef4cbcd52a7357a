import {
  ASSIGN_STRINGS,
  type AssignHow,
  TICKET_STATUS,
  TICKET_STATUS_STRINGS,
  TICKET_STRINGS,
  TICKET_SYSTEM_MESSAGES,
  type TicketAssignInput,
  type TicketDepartmentInput,
  type TicketLabelsInput,
  type TicketListItem,
  type TicketStatusInput,
  type TicketUpdated,
  ticketStatusName,
} from '@parley/contracts';
import type { AuthContext } from '../../../platform/auth/sessions.js';
import type { DB } from '../../../platform/db/db.js';
import type { TicketsTable } from '../../../platform/db/schema.js';
import { badRequest, notFound } from '../../../platform/http/errors.js';
import { appendEvents, type NewEvent, runCommand, type Trx } from '../../../platform/outbox/index.js';
import { type AuditAction, recordAudit } from '../../audit/index.js';
import type { Conversations } from '../../messages/messages.realtime.js';
import { systemMessage } from '../../messages/systemMessage.js';
import { listTicketStatuses } from '../ticketStatuses.js';
import {
  TICKET_ASSIGNED,
  TICKET_STATUS_CHANGED,
  type TicketAssigned,
  type TicketStatusChanged,
} from '../tickets.events.js';
import { ticketItem } from '../tickets.queries.js';
import { ticketAudience } from '../tickets.realtime.js';

/** The ticket row as a change sees it before applying itself. */
export interface CurrentTicket {
  id: number;
  closed: number;
  assignee: string[];
  label: number[];
  department_id: number | null;
  channel: string;
  ticket_number: number;
}

/** What one change does: the columns it sets, the system message it posts, and who it newly assigns. */
export interface TicketChange {
  set: Partial<Pick<TicketsTable, 'closed' | 'assignee' | 'label' | 'department_id' | 'campaign_id' | 'priority'>> & {
    last_message_at?: number;
    has_responded?: number;
    attachment?: number;
  };
  message: string;
  action: AuditAction;
  detail: Record<string, unknown>;
  /** Usernames newly assigned by this change, recorded in `ticket_assignments`. */
  assigned?: { usernames: string[]; how: AssignHow };
}

/** Validates and decides one change from the ticket as it is (null: nothing to change); throws to refuse. */
export type Plan = (trx: Trx, current: CurrentTicket) => Promise<TicketChange | null>;

/** Who makes a change: a signed-in user, or the server itself (automatic assignment). */
export interface Actor {
  accountId: number;
  userId: number | null;
  username: string;
  name: string;
}
export const actorOf = (auth: AuthContext): Actor => ({
  accountId: auth.accountId,
  userId: auth.userId,
  username: auth.username,
  name: auth.name,
});

const splitAssignee = (s: string) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

/**
 * The one write path of every ticket change: the ticket must be the actor's account's (else "Ticket not
 * found.", TICKET-28), `plan` validates and decides (it throws before anything is written), then in one
 * transaction: the update (`updated_at` moves), a system message (type `system`, sender `server`), the
 * assignment records, an audit entry and `ticket.updated` (`updateTicket` to the account room).
 */
export async function changeTicket(
  db: DB,
  conversations: Conversations,
  actor: Actor,
  ticketId: number,
  plan: (trx: Trx, current: CurrentTicket) => Promise<TicketChange | null>,
): Promise<{ item: TicketListItem; changed: boolean }> {
  return runCommand(db, (trx) => changeTicketIn(trx, conversations, actor, ticketId, plan));
}

/** `changeTicket` inside a transaction the caller already holds (e.g. creating a ticket, then assigning it). */
export async function changeTicketIn(
  trx: Trx,
  conversations: Conversations,
  actor: Actor,
  ticketId: number,
  plan: (trx: Trx, current: CurrentTicket) => Promise<TicketChange | null>,
): Promise<{ item: TicketListItem; changed: boolean }> {
  {
    const row = await trx
      .selectFrom('tickets')
      .select(['id', 'closed', 'assignee', 'label', 'department_id', 'channel', 'ticket_number'])
      .where('account_id', '=', actor.accountId)
      .where('id', '=', ticketId)
      .executeTakeFirst();
    if (!row) throw notFound(TICKET_STRINGS.notFound);
    let label: number[] = [];
    try {
      const parsed = JSON.parse(row.label) as unknown;
      if (Array.isArray(parsed)) label = parsed.filter((x): x is number => typeof x === 'number');
    } catch {
      label = [];
    }
    const current: CurrentTicket = {
      id: Number(row.id),
      closed: Number(row.closed),
      assignee: splitAssignee(row.assignee),
      label,
      department_id: row.department_id === null ? null : Number(row.department_id),
      channel: row.channel,
      ticket_number: Number(row.ticket_number),
    };
    const change = await plan(trx, current);
    const viewer = { accountId: actor.accountId, userId: actor.userId ?? 0 };
    if (!change) return { item: await ticketItem(trx, viewer, ticketId), changed: false };
    const at = Date.now();
    await trx
      .updateTable('tickets')
      .set({ ...change.set, updated_at: at })
      .where('account_id', '=', actor.accountId)
      .where('id', '=', ticketId)
      .execute();
    // TICKET-27: the change's system message, shown live in open conversations.
    const said = await systemMessage(trx, conversations, {
      accountId: actor.accountId,
      ticketId,
      channel: row.channel,
      message: change.message,
      at,
    });
    if (change.assigned && change.assigned.usernames.length > 0)
      await trx
        .insertInto('ticket_assignments')
        .values(
          change.assigned.usernames.map((username) => ({
            account_id: actor.accountId,
            ticket_id: ticketId,
            username,
            assigned_by: actor.userId === null ? 'server' : actor.username,
            how: change.assigned!.how,
            assigned_at: at,
          })),
        )
        .execute();
    await recordAudit(trx, {
      accountId: actor.accountId,
      userId: actor.userId,
      actor: actor.userId === null ? 'server' : actor.username,
      action: change.action,
      detail: { id: ticketId, ...change.detail },
    });
    const item = await ticketItem(trx, viewer, ticketId);
    const { read: _read, newMessage: _new, ...payload } = item;
    const events: NewEvent[] = [
      said,
      {
        accountId: actor.accountId,
        type: 'ticket.updated',
        payload: payload satisfies TicketUpdated,
        realtime: ticketAudience(actor.accountId, payload),
      },
    ];
    // A domain event of its own for new assignees (no socket event): "assigned to you" listens to it, not to
    // every ticket.updated (a message's too).
    if (change.assigned && change.assigned.usernames.length > 0)
      events.push({
        accountId: actor.accountId,
        type: TICKET_ASSIGNED,
        payload: { id: ticketId, at, usernames: change.assigned.usernames } satisfies TicketAssigned,
      });
    if (change.set.closed !== undefined && Number(change.set.closed) !== current.closed)
      events.push({
        accountId: actor.accountId,
        type: TICKET_STATUS_CHANGED,
        payload: { id: ticketId, from: current.closed, to: Number(change.set.closed) } satisfies TicketStatusChanged,
      });
    await appendEvents(trx, actor.accountId, events);
    return { item, changed: true };
  }
}

/**
 * TICKET-22, TICKET-27, TICKET-28: sets the status (0 to 3, or one of the account's custom
 * statuses, else "Unknown status.") and posts "X set the status to Y."
 */
export async function setTicketStatus(
  db: DB,
  conversations: Conversations,
  auth: AuthContext,
  input: TicketStatusInput,
): Promise<TicketListItem> {
  return (await runCommand(db, (trx) => setTicketStatusIn(trx, conversations, actorOf(auth), input))).item;
}

/** `setTicketStatus` inside the caller's transaction (a macro run changes many tickets in one). */
export function setTicketStatusIn(trx: Trx, conversations: Conversations, actor: Actor, input: TicketStatusInput) {
  return changeTicketIn(trx, conversations, actor, input.id, statusPlan(actor, input.status));
}

/** The plan of a status change (see `setTicketStatus`); bulk changes use it too. */
export function statusPlan(actor: Actor, status: number): Plan {
  return async (trx) => {
    const custom = status > TICKET_STATUS.all ? await listTicketStatuses(trx, actor.accountId) : [];
    if (status > TICKET_STATUS.all && !custom.some((c) => c.status_code === status))
      throw badRequest(TICKET_STATUS_STRINGS.unknownStatus);
    return {
      set: { closed: status },
      message: TICKET_SYSTEM_MESSAGES.status(actor.name || actor.username, ticketStatusName(status, custom)),
      action: 'ticket.status_set',
      detail: { status },
    };
  };
}

/**
 * Manual assignment: every name must be an active user of the account (matched without regard to case,
 * stored as the user's username), else 400 naming the first unknown one. `[]` unassigns. Users who were
 * not assigned before are recorded in `ticket_assignments` as `manual`. Not limited by the plan.
 */
export async function assignTicket(
  db: DB,
  conversations: Conversations,
  auth: AuthContext,
  input: TicketAssignInput,
): Promise<TicketListItem> {
  return (await runCommand(db, (trx) => assignTicketIn(trx, conversations, actorOf(auth), input))).item;
}

/** `assignTicket` inside the caller's transaction. */
export function assignTicketIn(trx: Trx, conversations: Conversations, actor: Actor, input: TicketAssignInput) {
  return changeTicketIn(trx, conversations, actor, input.id, assignPlan(actor, input.assignee));
}

/** The plan of a manual assignment (see `assignTicket`); bulk changes and macros use it too. */
export function assignPlan(actor: Actor, assignee: string[]): Plan {
  return async (trx, current) => {
    const wanted = [...new Set(assignee.map((u) => u.trim()))];
    const users = wanted.length
      ? await trx
          .selectFrom('users')
          .select(['username', 'name'])
          .where('account_id', '=', actor.accountId)
          .where('active', '=', 1)
          .where(
            (eb) => eb.fn('lower', ['username']),
            'in',
            wanted.map((u) => u.toLowerCase()),
          )
          .execute()
      : [];
    const byLower = new Map(users.map((u) => [u.username.toLowerCase(), u]));
    const found = wanted.map((w) => {
      const u = byLower.get(w.toLowerCase());
      if (!u) throw badRequest(ASSIGN_STRINGS.unknownAssignee(w));
      return u;
    });
    const usernames = [...new Set(found.map((u) => u.username))];
    return {
      set: { assignee: usernames.join(',') },
      message: TICKET_SYSTEM_MESSAGES.assigned(
        actor.name || actor.username,
        found.map((u) => u.name || u.username),
      ),
      action: 'ticket.assigned',
      detail: { assignee: usernames, how: 'manual' },
      assigned: { usernames: usernames.filter((u) => !current.assignee.includes(u)), how: 'manual' },
    };
  };
}

/** The ticket's labels: ids of the account's labels that are not removed, else 400 naming the first bad id. */
export async function setTicketLabels(
  db: DB,
  conversations: Conversations,
  auth: AuthContext,
  input: TicketLabelsInput,
): Promise<TicketListItem> {
  return (await runCommand(db, (trx) => setTicketLabelsIn(trx, conversations, actorOf(auth), input))).item;
}

/** `setTicketLabels` inside the caller's transaction. */
export function setTicketLabelsIn(trx: Trx, conversations: Conversations, actor: Actor, input: TicketLabelsInput) {
  return changeTicketIn(trx, conversations, actor, input.id, async (trx) => {
    const ids = [...new Set(input.label)];
    const labels = ids.length
      ? await trx
          .selectFrom('labels')
          .select(['id', 'name'])
          .where('account_id', '=', actor.accountId)
          .where('removed', '=', 0)
          .where('id', 'in', ids)
          .execute()
      : [];
    const byId = new Map(labels.map((l) => [Number(l.id), l.name]));
    for (const labelId of ids) if (!byId.has(labelId)) throw badRequest(ASSIGN_STRINGS.unknownLabel(labelId));
    return {
      set: { label: JSON.stringify(ids) },
      message: TICKET_SYSTEM_MESSAGES.labels(
        actor.name || actor.username,
        ids.map((x) => byId.get(x)!),
      ),
      action: 'ticket.labels_set',
      detail: { label: ids },
    };
  });
}

/** The ticket's department: one of the account's, or null for none; another account's id is 400. */
export async function setTicketDepartment(
  db: DB,
  conversations: Conversations,
  auth: AuthContext,
  input: TicketDepartmentInput,
): Promise<TicketListItem> {
  const { item } = await changeTicket(
    db,
    conversations,
    actorOf(auth),
    input.id,
    departmentPlan(auth, input.department_id),
  );
  return item;
}

/** The plan of a department change (see `setTicketDepartment`); bulk changes use it too. */
export function departmentPlan(
  auth: Pick<AuthContext, 'accountId' | 'name' | 'username'>,
  departmentId: number | null,
): Plan {
  return async (trx) => {
    let name: string | null = null;
    if (departmentId !== null) {
      const dep = await trx
        .selectFrom('departments')
        .select('name')
        .where('account_id', '=', auth.accountId)
        .where('id', '=', departmentId)
        .executeTakeFirst();
      if (!dep) throw badRequest(ASSIGN_STRINGS.unknownDepartment);
      name = dep.name;
    }
    return {
      set: { department_id: departmentId },
      message: TICKET_SYSTEM_MESSAGES.department(auth.name || auth.username, name),
      action: 'ticket.department_set',
      detail: { department_id: departmentId },
    };
  };
}

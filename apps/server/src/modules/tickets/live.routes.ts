import {
  ASSIGN_STRINGS,
  DepartmentAutoAssign,
  DepartmentAutoAssignAnswer,
  ErrorCode,
  TicketCreateAnswer,
  TicketCreateInput,
  TicketReadAnswer,
  TicketReadInput,
  TicketSettings,
  TicketSettingsAnswer,
  UnreadAnswer,
} from '@parley/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DB } from '../../platform/db/db.js';
import { AppError } from '../../platform/http/errors.js';
import { runCommand } from '../../platform/outbox/index.js';
import { postMessage } from '../messages/index.js';
import type { Conversations } from '../messages/messages.realtime.js';
import { actorOf, assignPlan, changeTicketIn } from './commands/changeTicket.js';
import { createTicket } from './commands/createTicket.js';
import { markTicketRead } from './commands/readState.js';
import { ticketItem, type Viewer } from './tickets.queries.js';
import { unreadCounts } from './unreadCounts.js';

const viewer = (req: FastifyRequest): Viewer => ({ accountId: req.auth!.accountId, userId: req.auth!.userId });

/** Ticket creation by agents, read state, unread counts, and the per-department automatic assignment. */
export function ticketLiveRoutes(app: FastifyInstance, deps: { db: DB; conversations: Conversations }): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db, conversations } = deps;

  // RT-21: an agent opens a ticket by hand (MANUAL, or CALL for a call logged by hand); creation,
  // createTicket and any automatic assignment happen in one transaction.
  r.post(
    '/api/ticket/create',
    { config: { auth: 'user' }, schema: { body: TicketCreateInput, response: { 200: TicketCreateAnswer } } },
    async (req) => {
      const b = req.body;
      const auth = req.auth!;
      const id = await runCommand(db, async (trx) => {
        const id = await createTicket(trx, conversations, {
          accountId: req.auth!.accountId,
          channel: b.channel,
          title: b.title,
          name: b.name,
          email: b.email,
          phone: b.phone,
          departmentId: b.department_id,
          priority: b.priority,
          label: b.label,
          campaignId: b.campaign_id,
          caseType: b.case_type,
          other: b.other,
          callDirection: b.call_direction,
          did: b.did,
          userId: req.auth!.userId,
          encryptionMethod: b.encryption_method,
        });
        // The customer's first message is the customer's (sender `visitor`, as a channel's customer), so
        // replies, reply times and the emotion reader treat it as theirs.
        if (b.message !== '')
          await postMessage(trx, conversations, {
            accountId: auth.accountId,
            ticketId: id,
            sender: 'visitor',
            senderName: b.name || b.email || b.phone,
            type: 'text',
            message: b.message,
            fromCustomer: true,
          });
        if (b.assignee.length > 0)
          await changeTicketIn(trx, conversations, actorOf(auth), id, assignPlan(actorOf(auth), b.assignee));
        return id;
      });
      return { result: 'success' as const, data: await ticketItem(db, viewer(req), id) };
    },
  );

  // TICKET-41, RT-17: the web marks the open, focused ticket read (the socket's receivedTicket does the same).
  r.post(
    '/api/ticket/read',
    { config: { auth: 'user' }, schema: { body: TicketReadInput, response: { 200: TicketReadAnswer } } },
    async (req) => ({ result: 'success' as const, unread: await markTicketRead(db, viewer(req), req.body.id) }),
  );

  // RT-43, RT-44
  r.get('/api/unread', { config: { auth: 'user' }, schema: { response: { 200: UnreadAnswer } } }, async (req) => ({
    result: 'success' as const,
    data: await unreadCounts(db, viewer(req)),
  }));

  // TICKET-45: popup_on_call, kept in the account's settings JSON beside the other account settings.
  const settingsOf = async (accountId: number) => {
    const row = await db.selectFrom('accounts').select('settings').where('id', '=', accountId).executeTakeFirst();
    let all: Record<string, unknown> = {};
    try {
      all = JSON.parse(row?.settings ?? '{}') as Record<string, unknown>;
    } catch {
      all = {};
    }
    return { popup_on_call: all.popup_on_call === 1 ? (1 as const) : (0 as const) };
  };
  r.get(
    '/api/ticket/settings',
    { config: { auth: 'user' }, schema: { response: { 200: TicketSettingsAnswer } } },
    async (req) => ({ result: 'success' as const, data: await settingsOf(req.auth!.accountId) }),
  );
  r.post(
    '/api/ticket/settings',
    { config: { auth: 'admin' }, schema: { body: TicketSettings, response: { 200: TicketSettingsAnswer } } },
    async (req) => {
      const accountId = req.auth!.accountId;
      await runCommand(db, async (trx) => {
        const row = await trx.selectFrom('accounts').select('settings').where('id', '=', accountId).executeTakeFirst();
        let all: Record<string, unknown> = {};
        try {
          all = JSON.parse(row?.settings ?? '{}') as Record<string, unknown>;
        } catch {
          all = {};
        }
        all.popup_on_call = req.body.popup_on_call;
        await trx
          .updateTable('accounts')
          .set({ settings: JSON.stringify(all) })
          .where('id', '=', accountId)
          .execute();
      });
      return { result: 'success' as const, data: await settingsOf(accountId) };
    },
  );

  // Automatic assignment of new tickets, per department (admin).
  const list = async (accountId: number) =>
    (
      await db
        .selectFrom('department_assignment')
        .select(['department_id', 'strategy'])
        .where('account_id', '=', accountId)
        .orderBy('department_id')
        .execute()
    ).map((x) => ({ department_id: Number(x.department_id), strategy: x.strategy as 'round_robin' }));
  r.get(
    '/api/ticket/autoassign/settings',
    { config: { auth: 'admin' }, schema: { response: { 200: DepartmentAutoAssignAnswer } } },
    async (req) => ({ result: 'success' as const, data: await list(req.auth!.accountId) }),
  );
  r.post(
    '/api/ticket/autoassign/settings',
    {
      config: { auth: 'admin' },
      schema: { body: DepartmentAutoAssign, response: { 200: DepartmentAutoAssignAnswer } },
    },
    async (req) => {
      const accountId = req.auth!.accountId;
      const { department_id, strategy } = req.body;
      await runCommand(db, async (trx) => {
        const dep = await trx
          .selectFrom('departments')
          .select('id')
          .where('account_id', '=', accountId)
          .where('id', '=', department_id)
          .executeTakeFirst();
        if (!dep) throw new AppError(400, ErrorCode.validation, ASSIGN_STRINGS.unknownDepartment);
        await trx
          .deleteFrom('department_assignment')
          .where('account_id', '=', accountId)
          .where('department_id', '=', department_id)
          .execute();
        if (strategy)
          await trx
            .insertInto('department_assignment')
            .values({ department_id, account_id: accountId, strategy })
            .execute();
      });
      return { result: 'success' as const, data: await list(accountId) };
    },
  );
}

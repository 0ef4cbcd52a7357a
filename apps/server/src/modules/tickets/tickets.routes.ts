import {
  parseTicketFilter,
  TICKET_LIST_TYPES,
  TICKET_LOAD2_STEP,
  TICKET_PAGE_SIZE,
  TICKET_STRINGS,
  TicketAssignInput,
  TicketAutoAssignAnswer,
  TicketAutoAssignInput,
  TicketCampaignInput,
  TicketChangeAnswer,
  TicketDepartmentInput,
  TicketInfoAnswer,
  TicketLabelsInput,
  type TicketListType,
  TicketLoad2Params,
  TicketLoadAnswer,
  TicketLoadParams,
  TicketLoadQuery,
  TicketPriorityAnswer,
  TicketPriorityInput,
  TicketStatusInput,
} from '@parley/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { DB } from '../../platform/db/db.js';
import { badRequest } from '../../platform/http/errors.js';
import type { Conversations } from '../messages/messages.realtime.js';
import { assignTicketAutomatically } from './assignment.js';
import { assignTicket, setTicketDepartment, setTicketLabels, setTicketStatus } from './commands/changeTicket.js';
import { setTicketCampaign } from './commands/setTicketCampaign.js';
import { setTicketPriority } from './commands/setTicketPriority.js';
import { ticketLiveRoutes } from './live.routes.js';
import { myWorkRoutes } from './myWork.routes.js';
import { ticketStatusRoutes } from './statuses.routes.js';
import { ticketInfo } from './ticketInfo.js';
import { assertOwned, loadTickets, OpenCodesSeen, ticketItem, type Viewer } from './tickets.queries.js';
import { typingBoardOf } from './typing.js';

const statusOf = (filter: string) => {
  const code = parseTicketFilter(filter);
  if (code === null) throw badRequest(TICKET_STRINGS.badFilter);
  return code;
};
const typeOf = (type: string): TicketListType => {
  if (!Object.hasOwn(TICKET_LIST_TYPES, type)) throw badRequest(TICKET_STRINGS.badType);
  return type as TicketListType;
};
const offsetOf = (offset: string) => {
  if (!/^\d{1,9}$/.test(offset)) throw badRequest(TICKET_STRINGS.badOffset);
  return Number(offset);
};
const viewer = (req: FastifyRequest): Viewer => ({ accountId: req.auth!.accountId, userId: req.auth!.userId });

/** TICKET-30..38, TICKET-51: the ticket lists, one ticket and its priority. */
export function ticketRoutes(app: FastifyInstance, deps: { db: DB; conversations: Conversations }): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db, conversations } = deps;
  const seen = new OpenCodesSeen();
  ticketStatusRoutes(app, deps);
  ticketLiveRoutes(app, deps);
  myWorkRoutes(app, { ...deps, seen });

  // TICKET-31, TICKET-32 (design): both paths are the same call; `/api/...` is the newer client's.
  for (const prefix of ['', '/api'])
    r.get(
      `${prefix}/ticket/load/:token/:filter/:type/:offset`,
      {
        config: { auth: 'user' },
        schema: { params: TicketLoadParams, querystring: TicketLoadQuery, response: { 200: TicketLoadAnswer } },
      },
      async (req) =>
        loadTickets(
          db,
          viewer(req),
          {
            status: statusOf(req.params.filter),
            type: typeOf(req.params.type),
            offset: offsetOf(req.params.offset),
            limit: TICKET_PAGE_SIZE,
            query: req.query,
          },
          seen,
        ),
    );

  // TICKET-33, TICKET-34 (design): the Department and Label tabs, 10 a step, same filters and answer.
  for (const tab of ['department', 'label'] as const)
    r.get(
      `/ticket/load2/${tab}/:status/ticket/:offset/:id`,
      {
        config: { auth: 'user' },
        schema: { params: TicketLoad2Params, querystring: TicketLoadQuery, response: { 200: TicketLoadAnswer } },
      },
      async (req) => {
        const status = statusOf(req.params.status);
        const offset = offsetOf(req.params.offset);
        const query =
          tab === 'department'
            ? { ...req.query, depFilter: [req.params.id] }
            : { ...req.query, labelFilter: [req.params.id] };
        // The tab's own id is looked up in the account while the page is read (every statement of the page is
        // scoped to the account too): a foreign or unknown id answers 404 and the page is dropped.
        const checked = tab === 'department' ? { departments: [req.params.id] } : { labels: [req.params.id] };
        const page = { status, type: 'ticket' as const, offset, limit: TICKET_LOAD2_STEP, query };
        const [, answer] = await Promise.all([
          assertOwned(db, req.auth!.accountId, tab === 'department' ? 'departments' : 'labels', req.params.id),
          loadTickets(db, viewer(req), page, seen, checked),
        ]);
        return answer;
      },
    );

  r.get(
    '/ticket/info/:token/:id',
    {
      config: { auth: 'user' },
      schema: {
        params: z.object({ token: z.string().max(200), id: z.coerce.number().int().positive() }),
        response: { 200: TicketInfoAnswer },
      },
    },
    async (req) => {
      const v = viewer(req);
      const typing = await typingBoardOf(db).typing(v.accountId, req.params.id);
      return { result: 'success' as const, data: await ticketInfo(db, v, req.params.id, typing) };
    },
  );

  r.post(
    '/api/ticket/priority',
    { config: { auth: 'user' }, schema: { body: TicketPriorityInput, response: { 200: TicketPriorityAnswer } } },
    async (req) => ({ result: 'success' as const, data: await setTicketPriority(db, req.auth!, req.body) }),
  );

  // TICKET-27, TICKET-28, TICKET-29 (design) and automatic assignment: each change posts a system message,
  // emits updateTicket to the account and is audited; another account's ticket is "Ticket not found.".
  const success = { 200: TicketChangeAnswer };
  r.post(
    '/api/ticket/status',
    { config: { auth: 'user' }, schema: { body: TicketStatusInput, response: success } },
    async (req) => ({
      result: 'success' as const,
      data: await setTicketStatus(db, conversations, req.auth!, req.body),
    }),
  );
  r.post(
    '/api/ticket/assign',
    { config: { auth: 'user' }, schema: { body: TicketAssignInput, response: success } },
    async (req) => ({ result: 'success' as const, data: await assignTicket(db, conversations, req.auth!, req.body) }),
  );
  r.post(
    '/api/ticket/labels',
    { config: { auth: 'user' }, schema: { body: TicketLabelsInput, response: success } },
    async (req) => ({
      result: 'success' as const,
      data: await setTicketLabels(db, conversations, req.auth!, req.body),
    }),
  );
  r.post(
    '/api/ticket/department',
    { config: { auth: 'user' }, schema: { body: TicketDepartmentInput, response: success } },
    async (req) => ({
      result: 'success' as const,
      data: await setTicketDepartment(db, conversations, req.auth!, req.body),
    }),
  );
  r.post(
    '/api/ticket/campaign',
    { config: { auth: 'user' }, schema: { body: TicketCampaignInput, response: success } },
    async (req) => ({
      result: 'success' as const,
      data: await setTicketCampaign(db, conversations, req.auth!, req.body),
    }),
  );
  // Automatic assignment of one ticket on demand (admin), with the strategy given: to assign again a ticket
  // whose agents left, or to drive the rules. New tickets of a department with a strategy are assigned
  // automatically when they are created (createTicket, `department_assignment`).
  r.post(
    '/api/ticket/autoassign',
    {
      config: { auth: 'admin' },
      schema: { body: TicketAutoAssignInput, response: { 200: TicketAutoAssignAnswer } },
    },
    async (req) => {
      const { accountId, userId, username, name } = req.auth!;
      const assignee = await assignTicketAutomatically(db, conversations, accountId, req.body.id, req.body.strategy, {
        userId,
        username,
        name,
      });
      return { result: 'success' as const, assignee, data: await ticketItem(db, viewer(req), req.body.id) };
    },
  );
}

import {
  CASE_STAGE_NAMES,
  CASE_STRINGS,
  CaseAnswer,
  type CaseDetail,
  CaseInput,
  CaseListAnswer,
  CaseListQuery,
  CaseNoteBody,
  type CaseRow,
  type CaseStage,
  CaseTicketBody,
  OkAnswer,
  WORKSPACE_CHANNEL,
} from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { sql } from 'kysely';
import type { AuthContext } from '../../platform/auth/sessions.js';
import { type DB, likeEscape } from '../../platform/db/db.js';
import { badRequest, conflict, forbidden, notFound } from '../../platform/http/errors.js';
import { IdParams, RowId } from '../../platform/http/params.js';
import { runCommand, type Trx } from '../../platform/outbox/index.js';
import { hasPermission } from '../users/index.js';

const TicketParams = IdParams.extend({ ticketId: RowId });
const OPEN_STAGES: CaseStage[] = ['new', 'investigating', 'waiting'];

/** NAV: case management is hidden from non-admins with hide_case, on the API too. */
async function assertCases(db: DB, auth: AuthContext) {
  if (auth.type !== 'admin' && (await hasPermission(db, auth, 'hide_case'))) throw forbidden(CASE_STRINGS.hidden);
}

async function listCases(
  db: DB,
  accountId: number,
  where: { stage: string; ownerId?: number; q: string; id?: number },
) {
  let q = db
    .selectFrom('cases as k')
    .leftJoin('users as u', (j) => j.onRef('u.id', '=', 'k.owner_id').onRef('u.account_id', '=', 'k.account_id'))
    .leftJoin('contacts as c', (j) => j.onRef('c.id', '=', 'k.contact_id').onRef('c.account_id', '=', 'k.account_id'))
    .select((eb) => [
      'k.id',
      'k.title',
      'k.case_type',
      'k.stage',
      'k.owner_id',
      'k.contact_id',
      'k.due_at',
      'k.created_at',
      'k.updated_at',
      'u.name as owner_name',
      'u.username as owner_username',
      'c.name as contact_name',
      eb
        .selectFrom('case_tickets as ct')
        .select(eb.fn.countAll<number>().as('n'))
        .whereRef('ct.case_id', '=', 'k.id')
        .as('tickets'),
    ])
    .where('k.account_id', '=', accountId);
  if (where.id !== undefined) q = q.where('k.id', '=', where.id);
  if (where.stage === 'open') q = q.where('k.stage', 'in', OPEN_STAGES);
  else if (where.stage !== 'all') q = q.where('k.stage', '=', where.stage);
  if (where.ownerId !== undefined) q = q.where('k.owner_id', '=', where.ownerId);
  if (where.q) q = q.where(sql<boolean>`lower(k.title) like ${`%${likeEscape(where.q.toLowerCase())}%`} escape '!'`);
  const rows = await q.orderBy('k.updated_at', 'desc').orderBy('k.id', 'desc').limit(500).execute();
  return rows.map(
    (r): CaseRow => ({
      id: Number(r.id),
      title: r.title,
      case_type: r.case_type,
      stage: r.stage as CaseStage,
      owner_id: r.owner_id === null ? null : Number(r.owner_id),
      owner: r.owner_name || r.owner_username || '',
      contact_id: r.contact_id === null ? null : Number(r.contact_id),
      contact_name: r.contact_name ?? '',
      due_at: r.due_at === null ? null : Number(r.due_at),
      tickets: Number(r.tickets ?? 0),
      created_at: Number(r.created_at),
      updated_at: Number(r.updated_at),
    }),
  );
}

async function caseDetail(db: DB, accountId: number, id: number): Promise<CaseDetail> {
  const [row] = await listCases(db, accountId, { stage: 'all', q: '', id });
  if (!row) throw notFound(CASE_STRINGS.notFound);
  const tickets = await db
    .selectFrom('case_tickets as ct')
    .innerJoin('tickets as t', (j) => j.onRef('t.id', '=', 'ct.ticket_id').onRef('t.account_id', '=', 'ct.account_id'))
    .select(['t.id', 't.ticket_number', 't.title', 't.channel', 't.closed'])
    .where('ct.account_id', '=', accountId)
    .where('ct.case_id', '=', id)
    .orderBy('t.ticket_number')
    .execute();
  const timeline = await db
    .selectFrom('case_events as e')
    .leftJoin('users as u', (j) => j.onRef('u.id', '=', 'e.user_id').onRef('u.account_id', '=', 'e.account_id'))
    .select(['e.id', 'e.kind', 'e.text', 'e.created_at', 'u.name', 'u.username'])
    .where('e.account_id', '=', accountId)
    .where('e.case_id', '=', id)
    .orderBy('e.id', 'desc')
    .limit(500)
    .execute();
  return {
    ...row,
    ticket_list: tickets.map((t) => ({
      id: Number(t.id),
      ticket_number: Number(t.ticket_number),
      title: t.title,
      channel: t.channel,
      closed: Number(t.closed),
    })),
    timeline: timeline.map((e) => ({
      id: Number(e.id),
      kind: e.kind,
      text: e.text,
      by: e.name || e.username || '',
      at: Number(e.created_at),
    })),
  };
}

const log = (trx: Trx, auth: AuthContext, caseId: number, kind: string, text: string) =>
  trx
    .insertInto('case_events')
    .values({ account_id: auth.accountId, case_id: caseId, kind, text, user_id: auth.userId, created_at: Date.now() })
    .execute();

/** The owner must be an active user, and the contact a contact, of the account. */
async function checkRefs(trx: Trx, accountId: number, input: CaseInput) {
  if (input.owner_id !== null) {
    const u = await trx
      .selectFrom('users')
      .select(['id', 'name', 'username'])
      .where('account_id', '=', accountId)
      .where('id', '=', input.owner_id)
      .where('active', '=', 1)
      .executeTakeFirst();
    if (!u) throw badRequest(CASE_STRINGS.ownerNotFound);
  }
  if (input.contact_id !== null) {
    const c = await trx
      .selectFrom('contacts')
      .select('id')
      .where('account_id', '=', accountId)
      .where('id', '=', input.contact_id)
      .executeTakeFirst();
    if (!c) throw badRequest(CASE_STRINGS.contactNotFound);
  }
}
const ownerName = async (trx: Trx, accountId: number, id: number | null) => {
  if (id === null) return 'nobody';
  const u = await trx
    .selectFrom('users')
    .select(['name', 'username'])
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  return u?.name || u?.username || 'nobody';
};

/** Cases: list, make, change (stage, owner, due date: each written to the timeline), tickets, notes. */
export function caseRoutes(app: FastifyInstance, deps: { db: DB }): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db } = deps;
  const ok = 'success' as const;
  const user = { auth: 'user' } as const;

  r.get(
    '/api/cases',
    { config: user, schema: { querystring: CaseListQuery, response: { 200: CaseListAnswer } } },
    async (req) => {
      await assertCases(db, req.auth!);
      const { stage, mine, q } = req.query;
      return {
        result: ok,
        cases: await listCases(db, req.auth!.accountId, {
          stage,
          q,
          ownerId: mine === '1' ? req.auth!.userId : undefined,
        }),
      };
    },
  );
  r.post('/api/cases', { config: user, schema: { body: CaseInput, response: { 200: CaseAnswer } } }, async (req) => {
    const auth = req.auth!;
    await assertCases(db, auth);
    const id = await runCommand(db, async (trx) => {
      await checkRefs(trx, auth.accountId, req.body);
      const at = Date.now();
      const row = await trx
        .insertInto('cases')
        .values({ ...req.body, account_id: auth.accountId, created_by: auth.userId, created_at: at, updated_at: at })
        .returning('id')
        .executeTakeFirstOrThrow();
      await log(trx, auth, Number(row.id), 'created', `Case opened: ${req.body.title}`);
      return Number(row.id);
    });
    return { result: ok, case: await caseDetail(db, auth.accountId, id) };
  });
  r.get(
    '/api/cases/:id',
    { config: user, schema: { params: IdParams, response: { 200: CaseAnswer } } },
    async (req) => {
      await assertCases(db, req.auth!);
      return { result: ok, case: await caseDetail(db, req.auth!.accountId, req.params.id) };
    },
  );
  r.put(
    '/api/cases/:id',
    { config: user, schema: { params: IdParams, body: CaseInput, response: { 200: CaseAnswer } } },
    async (req) => {
      const auth = req.auth!;
      await assertCases(db, auth);
      const before = await caseDetail(db, auth.accountId, req.params.id);
      await runCommand(db, async (trx) => {
        await checkRefs(trx, auth.accountId, req.body);
        const b = req.body;
        if (b.stage !== before.stage) await log(trx, auth, before.id, 'stage', `Stage: ${CASE_STAGE_NAMES[b.stage]}`);
        if (b.owner_id !== before.owner_id)
          await log(trx, auth, before.id, 'owner', `Owner: ${await ownerName(trx, auth.accountId, b.owner_id)}`);
        if (b.due_at !== before.due_at)
          await log(trx, auth, before.id, 'due', b.due_at === null ? 'Due date removed' : 'Due date set');
        if (b.title !== before.title) await log(trx, auth, before.id, 'title', `Renamed: ${b.title}`);
        await trx
          .updateTable('cases')
          .set({ ...b, updated_at: Date.now() })
          .where('account_id', '=', auth.accountId)
          .where('id', '=', before.id)
          .execute();
      });
      return { result: ok, case: await caseDetail(db, auth.accountId, req.params.id) };
    },
  );
  r.post(
    '/api/cases/:id/tickets',
    { config: user, schema: { params: IdParams, body: CaseTicketBody, response: { 200: CaseAnswer } } },
    async (req) => {
      const auth = req.auth!;
      await assertCases(db, auth);
      const k = await caseDetail(db, auth.accountId, req.params.id);
      const n = req.body.ticket_number;
      const t = await db
        .selectFrom('tickets')
        .select(['id', 'title'])
        .where('account_id', '=', auth.accountId)
        .where('ticket_number', '=', n)
        .where('channel', '<>', WORKSPACE_CHANNEL)
        .executeTakeFirst();
      if (!t) throw notFound(CASE_STRINGS.ticketNotFound(n));
      if (k.ticket_list.some((x) => x.id === Number(t.id))) throw conflict(CASE_STRINGS.alreadyLinked(n));
      await runCommand(db, async (trx) => {
        await trx
          .insertInto('case_tickets')
          .values({ account_id: auth.accountId, case_id: k.id, ticket_id: Number(t.id), created_at: Date.now() })
          .execute();
        await log(trx, auth, k.id, 'ticket', `Ticket #${n} added: ${t.title}`);
        await trx
          .updateTable('cases')
          .set({ updated_at: Date.now() })
          .where('account_id', '=', auth.accountId)
          .where('id', '=', k.id)
          .execute();
      });
      return { result: ok, case: await caseDetail(db, auth.accountId, k.id) };
    },
  );
  r.delete(
    '/api/cases/:id/tickets/:ticketId',
    { config: user, schema: { params: TicketParams, response: { 200: OkAnswer } } },
    async (req) => {
      const auth = req.auth!;
      await assertCases(db, auth);
      const k = await caseDetail(db, auth.accountId, req.params.id);
      const t = k.ticket_list.find((x) => x.id === req.params.ticketId);
      if (!t) throw notFound('That ticket is not in this case.');
      await runCommand(db, async (trx) => {
        await trx
          .deleteFrom('case_tickets')
          .where('account_id', '=', auth.accountId)
          .where('case_id', '=', k.id)
          .where('ticket_id', '=', t.id)
          .execute();
        await log(trx, auth, k.id, 'ticket', `Ticket #${t.ticket_number} removed`);
      });
      return { result: ok };
    },
  );
  r.post(
    '/api/cases/:id/notes',
    { config: user, schema: { params: IdParams, body: CaseNoteBody, response: { 200: OkAnswer } } },
    async (req) => {
      const auth = req.auth!;
      await assertCases(db, auth);
      const k = await caseDetail(db, auth.accountId, req.params.id);
      await runCommand(db, (trx) => log(trx, auth, k.id, 'note', req.body.text));
      return { result: ok };
    },
  );
}

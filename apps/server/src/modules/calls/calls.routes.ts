import {
  CALL_STRINGS,
  CallAnswer,
  CallConfigAnswer,
  CallConfigInput,
  CallDetailAnswer,
  CallDetailParams,
  CallDidInput,
  CallEndInput,
  CallStartInput,
  ExtensionListAnswer,
  ImcUserAnswer,
  ImcUserQuery,
  SipRefreshAnswer,
} from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AuthContext } from '../../platform/auth/sessions.js';
import type { DB } from '../../platform/db/db.js';
import { forbidden, notFound } from '../../platform/http/errors.js';
import { runCommand } from '../../platform/outbox/index.js';
import { recordAudit } from '../audit/index.js';
import type { Conversations } from '../messages/messages.realtime.js';
import { hasPermission } from '../users/index.js';
import { callOfTicket, readsRecordings, transcriptOf } from './calls.queries.js';
import { endCall, startCall } from './commands/recordCall.js';
import { recordingRoutes } from './recordings.routes.js';

/** CALL-43: Call Configurations is for admins and users with the `call_settings` permission. */
async function assertCallSettings(db: DB, auth: AuthContext): Promise<void> {
  if (auth.type === 'admin') return;
  if (!(await hasPermission(db, auth, 'call_settings'))) throw forbidden(CALL_STRINGS.notAllowed);
}

/**
 * CALL-13, CALL-14, CALL-43, CALL-44: the account's call server. `GET` answers its own address (null when it
 * uses the installation's) and the installation's; `POST` sets or clears it, audited. Softphones pick it up
 * at their next auth check.
 */
export interface CallDeps {
  db: DB;
  conversations: Conversations;
  dataDir: string;
  defaultSipWsUrl: string;
}

export function callRoutes(app: FastifyInstance, deps: CallDeps): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db } = deps;
  const read = async (accountId: number) => {
    const a = await db
      .selectFrom('accounts')
      .select(['sip_ws_url', 'acw_seconds'])
      .where('id', '=', accountId)
      .executeTakeFirstOrThrow();
    return {
      result: 'success' as const,
      data: { sip_ws_url: a.sip_ws_url, default_url: deps.defaultSipWsUrl, acw_seconds: Number(a.acw_seconds) },
    };
  };
  r.get(
    '/api/call/config',
    { config: { auth: 'user' }, schema: { response: { 200: CallConfigAnswer } } },
    async (req) => read(req.auth!.accountId),
  );
  r.post(
    '/api/call/config',
    { config: { auth: 'user' }, schema: { body: CallConfigInput, response: { 200: CallConfigAnswer } } },
    async (req) => {
      const auth = req.auth!;
      await assertCallSettings(db, auth);
      await runCommand(db, async (trx) => {
        await trx
          .updateTable('accounts')
          .set({
            sip_ws_url: req.body.sip_ws_url,
            ...(req.body.acw_seconds === undefined ? {} : { acw_seconds: req.body.acw_seconds }),
            updated_at: Date.now(),
          })
          .where('id', '=', auth.accountId)
          .execute();
        await recordAudit(trx, {
          accountId: auth.accountId,
          userId: auth.userId,
          actor: auth.username,
          action: 'account.call_server_set',
          detail: { sip_ws_url: req.body.sip_ws_url },
        });
      });
      return read(auth.accountId);
    },
  );
  callLogRoutes(app, deps);
  lineRoutes(app, deps);
  recordingRoutes(app, deps);
}

/**
 * Every call is a CALL ticket: the softphone reports a call's start and end (`POST /api/call/start`,
 * `/api/call/end`) and the call list's detail pane reads its facts and transcript (`GET /api/call/{ticketId}`).
 */
function callLogRoutes(app: FastifyInstance, deps: CallDeps): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db } = deps;
  const answer = async (auth: AuthContext, ticketId: number) => {
    const call = await callOfTicket(db, auth.accountId, ticketId, readsRecordings(auth.type));
    if (!call) throw notFound(CALL_STRINGS.notFound);
    return { result: 'success' as const, data: call };
  };
  r.post(
    '/api/call/start',
    { config: { auth: 'user' }, schema: { body: CallStartInput, response: { 200: CallAnswer } } },
    async (req) => answer(req.auth!, await startCall(db, deps.conversations, req.auth!, req.body)),
  );
  r.post(
    '/api/call/end',
    { config: { auth: 'user' }, schema: { body: CallEndInput, response: { 200: CallAnswer } } },
    async (req) => answer(req.auth!, await endCall(db, deps.dataDir, req.auth!, req.body)),
  );
  r.get(
    '/api/call/:id',
    { config: { auth: 'user' }, schema: { params: CallDetailParams, response: { 200: CallDetailAnswer } } },
    async (req) => {
      const auth = req.auth!;
      const { data: call } = await answer(auth, req.params.id);
      return {
        result: 'success' as const,
        data: { call, transcript: await transcriptOf(db, auth.accountId, req.params.id) },
      };
    },
  );
}

/** CALL-06, CALL-35, CALL-38: the softphone's small look-ups: extensions, its own line, what a DID is. */
function lineRoutes(app: FastifyInstance, deps: CallDeps): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db } = deps;
  r.get(
    '/api/extension/get',
    { config: { auth: 'user' }, schema: { response: { 200: ExtensionListAnswer } } },
    async (req) => {
      const users = await db
        .selectFrom('users')
        .select(['id', 'username', 'name', 'sip_number'])
        .where('account_id', '=', req.auth!.accountId)
        .where('sip_active', '=', 1)
        .where('sip_number', '!=', '')
        .where('active', '=', 1)
        .orderBy('sip_number')
        .execute();
      return {
        result: 'success' as const,
        data: users.map((u) => ({ id: Number(u.id), username: u.username, name: u.name, extension: u.sip_number })),
      };
    },
  );
  r.get(
    '/api/sip/refresh',
    { config: { auth: 'user' }, schema: { response: { 200: SipRefreshAnswer } } },
    async (req) => {
      const auth = req.auth!;
      const u = await db
        .selectFrom('users')
        .innerJoin('accounts', 'accounts.id', 'users.account_id')
        .select(['users.sip_active', 'users.sip_number', 'users.sip_password', 'accounts.sip_ws_url'])
        .where('users.account_id', '=', auth.accountId)
        .where('users.id', '=', auth.userId)
        .executeTakeFirstOrThrow();
      return {
        result: 'success' as const,
        sip: { active: Number(u.sip_active), sip_number: u.sip_number, password: u.sip_password },
        sip_ws_url: u.sip_ws_url || deps.defaultSipWsUrl,
      };
    },
  );
  r.get(
    '/api/proxy/imc_user',
    { config: { auth: 'user' }, schema: { querystring: ImcUserQuery, response: { 200: ImcUserAnswer } } },
    async (req) => {
      const row = await db
        .selectFrom('call_dids')
        .select(['did', 'description'])
        .where('account_id', '=', req.auth!.accountId)
        .where('did', '=', req.query.did)
        .executeTakeFirst();
      if (!row) throw notFound(CALL_STRINGS.unknownDid);
      return { result: 'success' as const, data: row };
    },
  );
  r.post(
    '/api/call/did',
    { config: { auth: 'admin' }, schema: { body: CallDidInput, response: { 200: ImcUserAnswer } } },
    async (req) => {
      const auth = req.auth!;
      const { did, description } = req.body;
      await runCommand(db, async (trx) => {
        await trx.deleteFrom('call_dids').where('account_id', '=', auth.accountId).where('did', '=', did).execute();
        if (description)
          await trx.insertInto('call_dids').values({ account_id: auth.accountId, did, description }).execute();
        await recordAudit(trx, {
          accountId: auth.accountId,
          userId: auth.userId,
          actor: auth.username,
          action: 'account.call_did_set',
          detail: { did, description },
        });
      });
      return { result: 'success' as const, data: { did, description } };
    },
  );
}

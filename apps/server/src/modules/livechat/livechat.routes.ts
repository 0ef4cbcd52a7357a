import {
  ErrorCode,
  LiveChatIdInput,
  LiveChatInfoAnswer,
  LiveChatInfoInput,
  LiveChatListAnswer,
  LiveChatListQuery,
  LiveChatMergeInput,
  LiveChatOk,
  LiveChatRateAnswer,
  LiveChatRateInput,
  LiveChatRegisterAnswer,
  LiveChatRegisterInput,
  LiveChatRegisterQuery,
  LiveChatSettingsAnswer,
  LiveChatSettingsInput,
  VISITOR_STRINGS,
  VisitorDetailsAnswer,
  VisitorDetailsParams,
} from '@parley/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { DB } from '../../platform/db/db.js';
import { AppError, conflict, notFound } from '../../platform/http/errors.js';
import type { Mailer } from '../../platform/mail.js';
import type { Conversations } from '../messages/index.js';
import { acceptLiveChat, convertLiveChat, endLiveChat, mergeSessions, removeParticipant } from './commands/agent.js';
import { readSettings, saveSettings } from './commands/settings.js';
import { liveChatInfo, rateChat, registerVisitor } from './commands/visitor.js';
import { listGroups, sessionGroup } from './livechat.queries.js';
import { offerAfterSettings } from './offering.js';
import { clientIp, type VisitorLimits, visitorLimits } from './rateLimit.js';
import { transcriptRoutes } from './transcript.js';
import { visitorDetails } from './visitorDetails.js';
import { widgetPageRoutes } from './widgetPage.routes.js';

const AcceptInput = z.object({ id: z.number().int().positive().nullable() });
const RemoveInput = z.object({ id: z.number().int().positive(), username: z.string().min(1).max(100) });
const SessionInfoQuery = z.object({
  _token: z.string().max(200).optional(),
  session_id: z.coerce.number().int().positive(),
});

/** Visitor calls (public, rate limited per IP) and agent calls of live chat. */
export function liveChatRoutes(
  app: FastifyInstance,
  deps: {
    db: DB;
    conversations: Conversations;
    /** Tells waiting visitors their places (the visitor socket's hub, made after the routes). */
    placesChanged: (accountId: number) => void;
    webDist?: string;
    trustProxy?: boolean;
    /** Outgoing mail: chat transcripts are e-mailed with it. */
    mailer?: Mailer;
  },
): VisitorLimits {
  if (deps.webDist) widgetPageRoutes(app, { webDist: deps.webDist });
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db, conversations } = deps;
  const limits = visitorLimits(deps.trustProxy ?? false);
  const throttle = (req: FastifyRequest) => {
    const ip = clientIp(req.raw.socket.remoteAddress, req.headers['x-forwarded-for'], limits.trustProxy);
    if (!limits.register.take(ip)) throw new AppError(429, ErrorCode.rateLimited, VISITOR_STRINGS.tooFast);
  };
  const pub = { auth: 'public' as const };

  r.post(
    '/api/livechat/info',
    { config: pub, schema: { body: LiveChatInfoInput, response: { 200: LiveChatInfoAnswer } } },
    async (req) => {
      throttle(req);
      return liveChatInfo(db, req.body.token, req.body.csrf, { mailConfigured: deps.mailer?.configured ?? false });
    },
  );
  r.post(
    '/api/livechat/register',
    {
      config: pub,
      schema: {
        body: LiveChatRegisterInput,
        querystring: LiveChatRegisterQuery,
        response: { 200: LiveChatRegisterAnswer },
      },
    },
    async (req) => {
      throttle(req);
      const ticketId = await registerVisitor(db, conversations, req.body, req.query.api === 'false');
      return { result: 'success' as const, ticket_id: ticketId };
    },
  );
  r.post(
    '/api/livechat/rate',
    { config: pub, schema: { body: LiveChatRateInput, response: { 200: LiveChatRateAnswer } } },
    async (req) => {
      throttle(req);
      return { result: 'success' as const, ...(await rateChat(db, req.body)) };
    },
  );

  r.get(
    '/api/livechat/settings',
    { config: { auth: 'user' }, schema: { response: { 200: LiveChatSettingsAnswer } } },
    async (req) => ({ result: 'success' as const, data: await readSettings(db, req.auth!.accountId) }),
  );
  r.post(
    '/api/livechat/settings',
    { config: { auth: 'admin' }, schema: { body: LiveChatSettingsInput, response: { 200: LiveChatSettingsAnswer } } },
    async (req) => {
      const accountId = req.auth!.accountId;
      if (req.body.department_id !== null) {
        const dep = await db
          .selectFrom('departments')
          .select('id')
          .where('account_id', '=', accountId)
          .where('id', '=', req.body.department_id)
          .executeTakeFirst();
        if (!dep) throw new AppError(400, ErrorCode.validation, 'Unknown department.');
      }
      const data = await saveSettings(db, accountId, req.body);
      await offerAfterSettings(db, accountId);
      return { result: 'success' as const, data };
    },
  );
  r.get(
    '/api/livechat/list',
    { config: { auth: 'user' }, schema: { querystring: LiveChatListQuery, response: { 200: LiveChatListAnswer } } },
    async (req) => ({ result: 'success' as const, ...(await listGroups(db, req.auth!.accountId, req.query.offset)) }),
  );
  // LIVECHAT-05 over HTTP (the web app's Take one); the same command as the socket's acceptLiveChat.
  r.post('/api/livechat/accept', { config: { auth: 'user' }, schema: { body: AcceptInput } }, async (req) => {
    const r = await acceptLiveChat(db, conversations, req.auth!, req.body.id);
    if (!r.ok) throw conflict(r.error);
    deps.placesChanged(req.auth!.accountId);
    return { result: 'success' as const, ...r };
  });
  r.post(
    '/api/livechat/end',
    { config: { auth: 'user' }, schema: { body: LiveChatIdInput, response: { 200: LiveChatOk } } },
    async (req) => {
      await endLiveChat(db, conversations, req.auth!, req.body.id);
      return { result: 'success' as const };
    },
  );
  r.post(
    '/api/livechat/convert',
    { config: { auth: 'user' }, schema: { body: LiveChatIdInput, response: { 200: LiveChatOk } } },
    async (req) => {
      await convertLiveChat(db, conversations, req.auth!, req.body.id);
      return { result: 'success' as const };
    },
  );
  r.post(
    '/api/livechat/merge',
    { config: { auth: 'user' }, schema: { body: LiveChatMergeInput, response: { 200: LiveChatOk } } },
    async (req) => {
      await mergeSessions(db, req.auth!, req.body.session_id, req.body.ref_id);
      return { result: 'success' as const };
    },
  );
  r.post(
    '/api/livechat/remove',
    { config: { auth: 'user' }, schema: { body: RemoveInput, response: { 200: LiveChatOk } } },
    async (req) => {
      await removeParticipant(db, req.auth!, req.body.id, req.body.username);
      return { result: 'success' as const };
    },
  );
  // LIVECHAT-19, LIVECHAT-20 (design): one session's group, as in the list.
  r.get('/api/session/info', { config: { auth: 'user' }, schema: { querystring: SessionInfoQuery } }, async (req) => {
    const group = await sessionGroup(db, req.auth!.accountId, req.query.session_id);
    if (!group) throw notFound('Session not found.');
    return { result: 'success' as const, data: group };
  });
  // The visitor details beside a live chat (the spec names no call): what was stored when it was queued.
  r.get(
    '/api/livechat/visitor/:ticketId',
    { config: { auth: 'user' }, schema: { params: VisitorDetailsParams, response: { 200: VisitorDetailsAnswer } } },
    async (req) => ({
      result: 'success' as const,
      data: await visitorDetails(db, req.auth!.accountId, req.params.ticketId),
    }),
  );
  if (deps.mailer) transcriptRoutes(app, { db, conversations, mailer: deps.mailer, throttle });
  return limits;
}

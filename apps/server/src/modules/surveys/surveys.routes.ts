import { randomBytes } from 'node:crypto';
import {
  ErrorCode,
  OkAnswer,
  PublicSurveyAnswer,
  SURVEY_STRINGS,
  SurveyAnswerBody,
  SurveyLinkAnswer,
} from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { DB } from '../../platform/db/db.js';
import { AppError, conflict, notFound } from '../../platform/http/errors.js';
import { IdParams } from '../../platform/http/params.js';
import { appendEvent, runCommand } from '../../platform/outbox/index.js';
import { requirePlanFeature } from '../accounts/index.js';
import { takeHits } from '../auth/index.js';
import { type Conversations, readableTicket } from '../messages/index.js';
import { TICKET_RATED, type TicketRated } from '../tickets/index.js';

const TokenParams = z.object({ token: z.string().min(1).max(100) });
const HOUR_MS = 3_600_000;

/**
 * Satisfaction surveys: an agent who may read a ticket makes (or reads again) its survey link, on a plan
 * with surveys (PLAN-21); the customer's page reads the survey and answers it once. The rating is the
 * ticket's CSAT in the reports.
 */
export function surveyRoutes(app: FastifyInstance, deps: { db: DB; conversations: Conversations }): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db, conversations } = deps;

  r.post(
    '/api/ticket/:id/survey',
    { config: { auth: 'user' }, schema: { params: IdParams, response: { 200: SurveyLinkAnswer } } },
    async (req) => {
      const { accountId } = req.auth!;
      await readableTicket(db, conversations, req, req.params.id);
      // Made once per ticket: a second ask (or two at once) reads the first link.
      const token = await runCommand(db, async (trx) => {
        // PLAN-21: surveys come with Basic and up.
        await requirePlanFeature(trx, accountId, 'surveys', SURVEY_STRINGS.notOnPlan);
        await trx
          .insertInto('ticket_surveys')
          .values({
            account_id: accountId,
            ticket_id: req.params.id,
            token: randomBytes(18).toString('base64url'),
            rating: null,
            created_at: Date.now(),
            answered_at: null,
          })
          .onConflict((oc) => oc.columns(['account_id', 'ticket_id']).doNothing())
          .execute();
        const row = await trx
          .selectFrom('ticket_surveys')
          .select('token')
          .where('account_id', '=', accountId)
          .where('ticket_id', '=', req.params.id)
          .executeTakeFirstOrThrow();
        return row.token;
      });
      return { result: 'success' as const, token };
    },
  );

  const byToken = async (token: string) => {
    const s = await db
      .selectFrom('ticket_surveys as s')
      .innerJoin('tickets as t', (j) => j.onRef('t.id', '=', 's.ticket_id').onRef('t.account_id', '=', 's.account_id'))
      .innerJoin('accounts as a', 'a.id', 's.account_id')
      .select(['s.id', 's.account_id', 's.ticket_id', 's.rating', 't.ticket_number', 't.title', 'a.name as company'])
      .where('s.token', '=', token)
      .executeTakeFirst();
    if (!s) throw notFound(SURVEY_STRINGS.notFound);
    return s;
  };
  r.get(
    '/api/public/surveys/:token',
    { config: { auth: 'public' }, schema: { params: TokenParams, response: { 200: PublicSurveyAnswer } } },
    async (req) => {
      const s = await byToken(req.params.token);
      return {
        result: 'success' as const,
        company: s.company,
        ticket_number: Number(s.ticket_number),
        title: s.title,
        rating: s.rating === null ? null : Number(s.rating),
      };
    },
  );
  r.post(
    '/api/public/surveys/:token',
    {
      config: { auth: 'public' },
      schema: { params: TokenParams, body: SurveyAnswerBody, response: { 200: OkAnswer } },
    },
    async (req) => {
      const allowed = await takeHits(db, [{ key: `survey:ip:${req.ip}`, max: 30, windowMs: HOUR_MS }]);
      if (!allowed) throw new AppError(429, ErrorCode.rateLimited, SURVEY_STRINGS.tooMany);
      const s = await byToken(req.params.token);
      // Once: the answer is set only while there is none, so two answers at once keep the first.
      await runCommand(db, async (trx) => {
        const set = await trx
          .updateTable('ticket_surveys')
          .set({ rating: req.body.rating, comment: req.body.comment, answered_at: Date.now() })
          .where('id', '=', s.id)
          .where('account_id', '=', s.account_id)
          .where('rating', 'is', null)
          .executeTakeFirst();
        if (Number(set.numUpdatedRows) === 0) throw conflict(SURVEY_STRINGS.answered);
        const rated: TicketRated = { id: Number(s.ticket_id), rating: req.body.rating };
        await appendEvent(trx, { accountId: Number(s.account_id), type: TICKET_RATED, payload: rated });
      });
      return { result: 'success' as const };
    },
  );
}

import { AiFeedbackBody, OkAnswer, TicketRecommendation, TicketRecommendationQuery } from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DB } from '../../platform/db/db.js';
import type { Conversations } from '../messages/index.js';
import type { Classifiers } from './classify/classifier.js';
import { analyseMessage } from './engine/analyse.js';
import { readableMessage } from './retrieve/readableMessage.js';
import { recordFeedback } from './retrieve/recordFeedback.js';
import type { WhatToSayIndex } from './retrieve/whatToSay.js';

/**
 * AI-01, AI-08: `GET /api/wauchat/ticket_recommendation` (the offline engine's classification, what to say,
 * full reading and scam reading of a customer's message) and `POST /api/wauchat/feedback` (a use or a
 * dismissal, which ranks later suggestions). The message must be one of the caller's account in a
 * conversation they may read; the text asked about is the one given (the agent may have translated it).
 */
export function recommendRoutes(
  app: FastifyInstance,
  deps: { db: DB; conversations: Conversations; classifiers: Classifiers; whatToSay: WhatToSayIndex },
): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get(
    '/api/wauchat/ticket_recommendation',
    {
      config: { auth: 'user' },
      schema: { querystring: TicketRecommendationQuery, response: { 200: TicketRecommendation } },
    },
    async (req) => {
      const auth = req.auth!;
      const q = req.query;
      const { ticketId } = await readableMessage(deps.db, deps.conversations, auth, q.messageId);
      const results = analyseMessage(q.text);
      const classification = await deps.classifiers.classify(auth.accountId, q.text);
      const what_to_say = await deps.whatToSay.suggest(auth.accountId, q.text, ticketId);
      return { engine: 'offline' as const, classification, what_to_say, results, scam: results.scam };
    },
  );

  r.post(
    '/api/wauchat/feedback',
    { config: { auth: 'user' }, schema: { body: AiFeedbackBody, response: { 200: OkAnswer } } },
    async (req) => {
      await recordFeedback(deps.db, deps.conversations, req.auth!, req.body);
      return { result: 'success' as const };
    },
  );
}

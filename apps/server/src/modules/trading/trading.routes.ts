import {
  AnalystAnswer,
  AnalystQuery,
  InsightAnswer,
  InstrumentAnswer,
  InstrumentInput,
  InstrumentListAnswer,
  MentionParams,
  MentionQuery,
  MentionsAnswer,
  OkAnswer,
  TradingRange,
} from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DB } from '../../platform/db/db.js';
import { IdParams } from '../../platform/http/params.js';
import { analyst, insight, mentionsOf } from './analyst.js';
import { addInstrument, editInstrument, listInstruments, removeInstrument } from './instruments.js';

/**
 * NAV-07, NAV-24, docs/trading.md: the trading desk's watch list, the analyst's view of one instrument, its
 * drill-down to the messages, and the overview of all. Admins only; the host variant is the web app's gate.
 */
export function tradingRoutes(app: FastifyInstance, deps: { db: DB; now?: () => number }): void {
  const { db } = deps;
  const now = () => (deps.now ?? Date.now)();
  const r = app.withTypeProvider<ZodTypeProvider>();
  const admin = { auth: 'admin' as const };
  r.get(
    '/api/trading/instruments',
    { config: admin, schema: { response: { 200: InstrumentListAnswer } } },
    async (req) => ({ result: 'success' as const, data: await listInstruments(db, req.auth!.accountId) }),
  );
  r.post(
    '/api/trading/instruments',
    { config: admin, schema: { body: InstrumentInput, response: { 200: InstrumentAnswer } } },
    async (req) => ({ result: 'success' as const, data: await addInstrument(db, req.auth!, req.body) }),
  );
  r.put(
    '/api/trading/instruments/:id',
    { config: admin, schema: { params: IdParams, body: InstrumentInput, response: { 200: InstrumentAnswer } } },
    async (req) => ({
      result: 'success' as const,
      data: await editInstrument(db, req.auth!, req.params.id, req.body),
    }),
  );
  r.delete(
    '/api/trading/instruments/:id',
    { config: admin, schema: { params: IdParams, response: { 200: OkAnswer } } },
    async (req) => {
      await removeInstrument(db, req.auth!, req.params.id);
      return { result: 'success' as const };
    },
  );
  r.get(
    '/api/trading/analyst',
    { config: admin, schema: { querystring: AnalystQuery, response: { 200: AnalystAnswer } } },
    async (req) => ({ result: 'success' as const, ...(await analyst(db, req.auth!.accountId, req.query, now())) }),
  );
  r.get(
    '/api/trading/analyst/:channel/:id',
    { config: admin, schema: { params: MentionParams, querystring: MentionQuery, response: { 200: MentionsAnswer } } },
    async (req) => ({
      result: 'success' as const,
      ...(await mentionsOf(db, req.auth!.accountId, req.params, req.query, now())),
    }),
  );
  r.get(
    '/api/trading/insight',
    { config: admin, schema: { querystring: TradingRange, response: { 200: InsightAnswer } } },
    async (req) => ({ result: 'success' as const, ...(await insight(db, req.auth!.accountId, req.query, now())) }),
  );
}

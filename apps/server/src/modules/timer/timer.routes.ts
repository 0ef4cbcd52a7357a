import {
  OkAnswer,
  TIMER_STRINGS,
  TicketTimeAnswer,
  TimeEntryAnswer,
  TimeEntryChange,
  TimeEntryInput,
  TimeRangeAnswer,
  TimeRangeQuery,
  TimerStartAnswer,
  TimerStartBody,
  TimerStopAnswer,
} from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DB } from '../../platform/db/db.js';
import { forbidden, notFound } from '../../platform/http/errors.js';
import { IdParams } from '../../platform/http/params.js';
import {
  addTimeEntry,
  assertTicket,
  changeTimeEntry,
  removeTimeEntry,
  startTimer,
  stopTimer,
} from './commands/timeEntries.js';
import { runningEntry, ticketTime, timeEntries, timeEntry, timeTotals } from './timer.queries.js';

/** Time tracking: a ticket's time, the caller's timer, manual entries, the team's time over a range. */
export function timerRoutes(app: FastifyInstance, deps: { db: DB; now?: () => number }): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db } = deps;
  const now = deps.now ?? Date.now;
  const ok = 'success' as const;
  const user = { auth: 'user' } as const;
  const entryOf = async (accountId: number, id: number) => {
    const e = await timeEntry(db, accountId, id);
    if (!e) throw notFound(TIMER_STRINGS.entryNotFound);
    return e;
  };

  r.get(
    '/api/timer/ticket/:id',
    { config: user, schema: { params: IdParams, response: { 200: TicketTimeAnswer } } },
    async (req) => {
      const { accountId, userId } = req.auth!;
      await assertTicket(db, accountId, req.params.id);
      const { entries, total } = await ticketTime(db, accountId, req.params.id);
      const mine = await runningEntry(db, accountId, userId);
      return {
        result: ok,
        entries,
        total_seconds: total,
        running: mine?.ticket_id === req.params.id ? mine : null,
        elsewhere: mine && mine.ticket_id !== req.params.id ? mine : null,
        now: now(),
      };
    },
  );
  r.post(
    '/api/timer/start',
    { config: user, schema: { body: TimerStartBody, response: { 200: TimerStartAnswer } } },
    async (req) => {
      const auth = req.auth!;
      const { id, stopped } = await startTimer(db, auth, req.body.ticket_id, req.body.tz, now);
      return {
        result: ok,
        entry: await entryOf(auth.accountId, id),
        stopped: stopped === null ? null : ((await timeEntry(db, auth.accountId, stopped)) ?? null),
      };
    },
  );
  r.post('/api/timer/stop', { config: user, schema: { response: { 200: TimerStopAnswer } } }, async (req) => {
    const auth = req.auth!;
    const id = await stopTimer(db, auth, now);
    return { result: ok, entry: id === null ? null : ((await timeEntry(db, auth.accountId, id)) ?? null) };
  });
  r.post(
    '/api/timer/entries',
    { config: user, schema: { body: TimeEntryInput, response: { 200: TimeEntryAnswer } } },
    async (req) => {
      const auth = req.auth!;
      const id = await addTimeEntry(db, auth, req.body, now);
      return { result: ok, entry: await entryOf(auth.accountId, id) };
    },
  );
  r.put(
    '/api/timer/entries/:id',
    { config: user, schema: { params: IdParams, body: TimeEntryChange, response: { 200: TimeEntryAnswer } } },
    async (req) => {
      const auth = req.auth!;
      await changeTimeEntry(db, auth, req.params.id, req.body, now);
      return { result: ok, entry: await entryOf(auth.accountId, req.params.id) };
    },
  );
  r.delete(
    '/api/timer/entries/:id',
    { config: user, schema: { params: IdParams, response: { 200: OkAnswer } } },
    async (req) => {
      await removeTimeEntry(db, req.auth!, req.params.id);
      return { result: ok };
    },
  );
  r.get(
    '/api/timer/entries',
    { config: user, schema: { querystring: TimeRangeQuery, response: { 200: TimeRangeAnswer } } },
    async (req) => {
      const auth = req.auth!;
      const { from, to, user_id } = req.query;
      // An agent sees only their own time; an admin anyone's, or everyone's.
      if (auth.type !== 'admin' && user_id !== undefined && user_id !== auth.userId)
        throw forbidden(TIMER_STRINGS.onlyOwn);
      const range = { from, to, userId: auth.type === 'admin' ? user_id : auth.userId };
      const { entries, truncated } = await timeEntries(db, auth.accountId, range);
      const totals = await timeTotals(db, auth.accountId, range);
      return {
        result: ok,
        entries,
        totals,
        total_seconds: totals.reduce((s, t) => s + t.seconds, 0),
        truncated,
      };
    },
  );
}

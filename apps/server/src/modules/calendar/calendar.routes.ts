import { randomBytes } from 'node:crypto';
import {
  CALENDAR_LIMITS,
  CALENDAR_STRINGS,
  CalendarAnswer,
  CalendarQuery,
  EventAnswer,
  EventInput,
  FeedAnswer,
  OkAnswer,
} from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AuthContext } from '../../platform/auth/sessions.js';
import type { DB } from '../../platform/db/db.js';
import { badRequest, forbidden, notFound } from '../../platform/http/errors.js';
import { IdParams } from '../../platform/http/params.js';
import { runCommand } from '../../platform/outbox/index.js';
import { hasPermission } from '../users/index.js';
import { appointmentsIn, dayStart, eventsIn, holidaysIn, icsFeed } from './calendar.queries.js';

const DAY_MS = 86_400_000;

/** NAV-14: the calendar is hidden from non-admins with hide_calendar, on the API too. */
async function assertCalendar(db: DB, auth: AuthContext) {
  if (auth.type !== 'admin' && (await hasPermission(db, auth, 'hide_calendar')))
    throw forbidden(CALENDAR_STRINGS.hidden);
}

/** A contact or ticket an event names must be the account's. */
async function assertOwned(db: DB, accountId: number, e: EventInput) {
  for (const [table, id] of [
    ['contacts', e.contact_id],
    ['tickets', e.ticket_id],
  ] as const) {
    if (id === null) continue;
    const row = await db
      .selectFrom(table)
      .select('id')
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row) throw badRequest(table === 'contacts' ? CALENDAR_STRINGS.contactNotFound : 'Ticket not found.');
  }
}

/** The calendar's reads and writes for the team, and each user's private iCalendar feed. */
export function calendarRoutes(app: FastifyInstance, deps: { db: DB; host: string }): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db } = deps;
  const ok = 'success' as const;
  const user = { auth: 'user' } as const;

  r.get(
    '/api/calendar',
    { config: user, schema: { querystring: CalendarQuery, response: { 200: CalendarAnswer } } },
    async (req) => {
      const { accountId } = req.auth!;
      await assertCalendar(db, req.auth!);
      const { from, to, contact } = req.query;
      const start = dayStart(from);
      const end = dayStart(to) + DAY_MS;
      if (Number.isNaN(start) || Number.isNaN(end)) throw badRequest(CALENDAR_STRINGS.badDay);
      if (end <= start) throw badRequest(CALENDAR_STRINGS.endBeforeStart);
      if (end - start > CALENDAR_LIMITS.rangeDays * DAY_MS) throw badRequest(CALENDAR_STRINGS.rangeTooLong);
      return {
        result: ok,
        events: await eventsIn(db, accountId, { start, end }, contact),
        holidays: contact === undefined ? await holidaysIn(db, accountId, from, to) : [],
        appointments: await appointmentsIn(db, accountId, from, to, contact),
      };
    },
  );
  r.post(
    '/api/calendar/events',
    { config: user, schema: { body: EventInput, response: { 200: EventAnswer } } },
    async (req) => {
      const { accountId, userId } = req.auth!;
      await assertCalendar(db, req.auth!);
      await assertOwned(db, accountId, req.body);
      const at = Date.now();
      const row = await runCommand(db, (trx) =>
        trx
          .insertInto('calendar_events')
          .values({
            ...req.body,
            all_day: req.body.all_day ? 1 : 0,
            account_id: accountId,
            created_by: userId,
            created_at: at,
            updated_at: at,
          })
          .returning('id')
          .executeTakeFirstOrThrow(),
      );
      const [event] = await eventsIn(db, accountId, { start: 0, end: 0 }, undefined, Number(row.id));
      return { result: ok, event: event! };
    },
  );
  const one = async (accountId: number, id: number) => {
    const [event] = await eventsIn(db, accountId, { start: 0, end: 0 }, undefined, id);
    if (!event) throw notFound(CALENDAR_STRINGS.notFound);
    return event;
  };
  r.get(
    '/api/calendar/events/:id',
    { config: user, schema: { params: IdParams, response: { 200: EventAnswer } } },
    async (req) => {
      await assertCalendar(db, req.auth!);
      return { result: ok, event: await one(req.auth!.accountId, req.params.id) };
    },
  );
  r.put(
    '/api/calendar/events/:id',
    { config: user, schema: { params: IdParams, body: EventInput, response: { 200: EventAnswer } } },
    async (req) => {
      const { accountId } = req.auth!;
      await assertCalendar(db, req.auth!);
      await one(accountId, req.params.id);
      await assertOwned(db, accountId, req.body);
      await runCommand(db, (trx) =>
        trx
          .updateTable('calendar_events')
          .set({ ...req.body, all_day: req.body.all_day ? 1 : 0, updated_at: Date.now() })
          .where('account_id', '=', accountId)
          .where('id', '=', req.params.id)
          .execute(),
      );
      return { result: ok, event: await one(accountId, req.params.id) };
    },
  );
  r.delete(
    '/api/calendar/events/:id',
    { config: user, schema: { params: IdParams, response: { 200: OkAnswer } } },
    async (req) => {
      const { accountId } = req.auth!;
      await assertCalendar(db, req.auth!);
      await one(accountId, req.params.id);
      await runCommand(db, (trx) =>
        trx.deleteFrom('calendar_events').where('account_id', '=', accountId).where('id', '=', req.params.id).execute(),
      );
      return { result: ok };
    },
  );

  /** The caller's feed token, made on first ask; `POST` makes a new one (the old address stops working). */
  const feedToken = (auth: AuthContext, renew: boolean) =>
    runCommand(db, async (trx) => {
      const token = randomBytes(24).toString('base64url');
      if (renew)
        await trx
          .deleteFrom('calendar_feeds')
          .where('account_id', '=', auth.accountId)
          .where('user_id', '=', auth.userId)
          .execute();
      await trx
        .insertInto('calendar_feeds')
        .values({ account_id: auth.accountId, user_id: auth.userId, token, created_at: Date.now() })
        .onConflict((oc) => oc.columns(['account_id', 'user_id']).doNothing())
        .execute();
      const row = await trx
        .selectFrom('calendar_feeds')
        .select('token')
        .where('account_id', '=', auth.accountId)
        .where('user_id', '=', auth.userId)
        .executeTakeFirstOrThrow();
      return row.token;
    });
  r.get('/api/calendar/feed', { config: user, schema: { response: { 200: FeedAnswer } } }, async (req) => {
    await assertCalendar(db, req.auth!);
    return { result: ok, token: await feedToken(req.auth!, false) };
  });
  r.post('/api/calendar/feed', { config: user, schema: { response: { 200: FeedAnswer } } }, async (req) => {
    await assertCalendar(db, req.auth!);
    return { result: ok, token: await feedToken(req.auth!, true) };
  });
  r.get(
    '/api/public/calendar/:file',
    { config: { auth: 'public' }, schema: { params: z.object({ file: z.string().min(1).max(100) }) } },
    async (req, reply) => {
      const token = req.params.file.replace(/\.ics$/, '');
      const feed = await db
        .selectFrom('calendar_feeds as f')
        .innerJoin('users as u', (j) => j.onRef('u.id', '=', 'f.user_id').onRef('u.account_id', '=', 'f.account_id'))
        .select(['f.account_id', 'u.active'])
        .where('f.token', '=', token)
        .executeTakeFirst();
      // A token nobody has, or a user who was switched off: nothing to read.
      if (!feed || Number(feed.active) !== 1) throw notFound('Calendar feed not found.');
      return reply
        .header('content-type', 'text/calendar; charset=utf-8')
        .header('cache-control', 'private, max-age=300')
        .send(await icsFeed(db, Number(feed.account_id), deps.host));
    },
  );
}

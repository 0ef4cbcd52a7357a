import { APPOINTMENT_KEY, CALENDAR_STRINGS } from '@parley/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUserVia, apiClient, type Call, signUpVia, uniq } from '../../testing/api.js';
import { dialects, startTestServer } from '../../testing/support.js';

const at = (iso: string) => Date.parse(iso);

describe.each(dialects)('calendar (%s)', (dialect) => {
  let s: Awaited<ReturnType<typeof startTestServer>>;
  let call: Call;
  const db = () => s.handle.db;

  beforeAll(async () => {
    s = await startTestServer(dialect);
    call = apiClient(s.url);
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('SHELL-20 SHELL-21 a month holds events, holidays and the appointments customers asked for; a contact its own', async () => {
    const admin = await signUpVia(call);
    const t = await call('POST', '/api/ticket/create', {
      token: admin.token,
      body: {
        title: 'Boiler service',
        name: 'Lina',
        email: `lina-${uniq()}@example.org`,
        other: { [APPOINTMENT_KEY]: '2031-03-14' },
      },
    });
    expect(t.status, t.text).toBe(200);
    const contactId = (
      await db().selectFrom('tickets').select('contact_id').where('id', '=', t.body.data.id).executeTakeFirstOrThrow()
    ).contact_id;
    const visit = await call('POST', '/api/calendar/events', {
      token: admin.token,
      body: {
        title: 'Visit, with tools; bring the ladder',
        starts_at: at('2031-03-10T09:00:00Z'),
        ends_at: at('2031-03-10T10:30:00Z'),
        notes: 'Line one\nline two',
        contact_id: contactId,
        ticket_id: t.body.data.id,
      },
    });
    expect(visit.status, visit.text).toBe(200);
    expect(visit.body.event).toMatchObject({ contact_name: 'Lina', created_by: admin.name });
    await call('POST', '/api/calendar/events', {
      token: admin.token,
      body: {
        title: 'Team day',
        starts_at: at('2031-03-20T00:00:00Z'),
        ends_at: at('2031-03-20T00:00:00Z'),
        all_day: true,
      },
    });
    await call('POST', '/api/calendar/events', {
      token: admin.token,
      body: { title: 'Next month', starts_at: at('2031-04-02T09:00:00Z'), ends_at: at('2031-04-02T10:00:00Z') },
    });
    expect(
      (
        await call('POST', '/api/sla/holidays', {
          token: admin.token,
          body: { departmentId: null, holidays: [{ date: '2031-03-21', name: 'Spring holiday' }] },
        })
      ).status,
    ).toBe(200);

    const march = await call('GET', '/api/calendar?from=2031-03-01&to=2031-03-31', { token: admin.token });
    expect(march.status, march.text).toBe(200);
    expect(march.body.events.map((e: { title: string }) => e.title)).toEqual([
      'Visit, with tools; bring the ladder',
      'Team day',
    ]);
    expect(march.body.holidays).toEqual([{ date: '2031-03-21', name: 'Spring holiday', department: '' }]);
    expect(march.body.appointments).toEqual([
      {
        ticket_id: t.body.data.id,
        ticket_number: 1,
        title: 'Boiler service',
        name: 'Lina',
        date: '2031-03-14',
        contact_id: contactId,
      },
    ]);
    const lina = await call('GET', `/api/calendar?from=2031-03-01&to=2031-03-31&contact=${contactId}`, {
      token: admin.token,
    });
    expect(lina.body.events.map((e: { title: string }) => e.title)).toEqual(['Visit, with tools; bring the ladder']);
    expect(lina.body.appointments).toHaveLength(1);
    expect(lina.body.holidays).toEqual([]);

    // The event's page, an edit, a removal.
    const id = visit.body.event.id as number;
    expect((await call('GET', `/api/calendar/events/${id}`, { token: admin.token })).body.event.title).toBe(
      'Visit, with tools; bring the ladder',
    );
    const moved = await call('PUT', `/api/calendar/events/${id}`, {
      token: admin.token,
      body: { ...visit.body.event, starts_at: at('2031-03-11T09:00:00Z'), ends_at: at('2031-03-11T10:00:00Z') },
    });
    expect(moved.body.event.starts_at).toBe(at('2031-03-11T09:00:00Z'));

    // The feed: iCalendar, text escaped, all-day events by date, appointments as all-day events.
    const feed = await call('GET', '/api/calendar/feed', { token: admin.token });
    const ics = await fetch(`${s.url}/api/public/calendar/${feed.body.token}.ics`);
    expect(ics.headers.get('content-type')).toMatch(/^text\/calendar/);
    const text = await ics.text();
    expect(text.startsWith('BEGIN:VCALENDAR\r\n')).toBe(true);
    // Events a year ahead are in; these are far away, so the feed holds none of them.
    expect(text).not.toContain('Team day');
    await db()
      .updateTable('calendar_events')
      .set({ starts_at: Date.now() + 86_400_000, ends_at: Date.now() + 90_000_000 })
      .where('id', '=', id)
      .execute();
    const near = await (await fetch(`${s.url}/api/public/calendar/${feed.body.token}.ics`)).text();
    expect(near).toContain('SUMMARY:Visit\\, with tools\\; bring the ladder');
    expect(near).toContain('DESCRIPTION:Line one\\nline two');
    expect(near.split('\r\n').every((l) => Buffer.byteLength(l) <= 75)).toBe(true);
    // A new address ends the old one.
    const renewed = await call('POST', '/api/calendar/feed', { token: admin.token });
    expect(renewed.body.token).not.toBe(feed.body.token);
    expect((await fetch(`${s.url}/api/public/calendar/${feed.body.token}.ics`)).status).toBe(404);
    expect((await call('DELETE', `/api/calendar/events/${id}`, { token: admin.token })).status).toBe(200);
    expect((await call('GET', `/api/calendar/events/${id}`, { token: admin.token })).status).toBe(404);
  });

  it('SHELL-21 bad ranges and events, another account, hide_calendar and a switched-off user: clear answers', async () => {
    const admin = await signUpVia(call);
    const other = await signUpVia(call);
    for (const q of [
      'from=2031-03-01&to=2031-06-30',
      'from=2031-03-10&to=2031-03-01',
      'from=03/01/2031&to=2031-03-02',
      'from=2031-03-01',
    ])
      expect((await call('GET', `/api/calendar?${q}`, { token: admin.token })).status, q).toBe(400);
    const range = await call('GET', '/api/calendar?from=2031-01-01&to=2031-06-30', { token: admin.token });
    expect(range.body.description).toBe(CALENDAR_STRINGS.rangeTooLong);
    const base = { title: 'x', starts_at: at('2031-03-10T10:00:00Z'), ends_at: at('2031-03-10T09:00:00Z') };
    const backwards = await call('POST', '/api/calendar/events', { token: admin.token, body: base });
    expect(backwards.status).toBe(400);
    expect(backwards.text).toContain(CALENDAR_STRINGS.endBeforeStart);
    const otherContact = await call('POST', '/api/contacts', { token: other.token, body: { name: 'Not yours' } });
    const foreign = await call('POST', '/api/calendar/events', {
      token: admin.token,
      body: { ...base, ends_at: base.starts_at, contact_id: otherContact.body.id },
    });
    expect([foreign.status, foreign.body.description]).toEqual([400, CALENDAR_STRINGS.contactNotFound]);
    const mine = await call('POST', '/api/calendar/events', {
      token: admin.token,
      body: { ...base, ends_at: base.starts_at },
    });
    expect((await call('GET', `/api/calendar/events/${mine.body.event.id}`, { token: other.token })).status).toBe(404);
    expect((await call('DELETE', `/api/calendar/events/${mine.body.event.id}`, { token: other.token })).status).toBe(
      404,
    );
    expect(
      (await call('GET', '/api/calendar?from=2031-03-01&to=2031-03-31', { token: other.token })).body.events,
    ).toEqual([]);

    const agent = await addUserVia(call, admin.token, { username: `ag-${uniq()}`, type: 'agent' });
    const feed = (await call('GET', '/api/calendar/feed', { token: agent.token })).body.token as string;
    expect((await fetch(`${s.url}/api/public/calendar/${feed}.ics`)).status).toBe(200);
    await db()
      .updateTable('users')
      .set({ permission: JSON.stringify(['hide_calendar']) })
      .where('id', '=', agent.id)
      .execute();
    const hidden = await call('GET', '/api/calendar?from=2031-03-01&to=2031-03-31', { token: agent.token });
    expect([hidden.status, hidden.body.description]).toEqual([403, CALENDAR_STRINGS.hidden]);
    await db().updateTable('users').set({ active: 0 }).where('id', '=', agent.id).execute();
    expect((await fetch(`${s.url}/api/public/calendar/${feed}.ics`)).status).toBe(404);
    expect((await fetch(`${s.url}/api/public/calendar/guess.ics`)).status).toBe(404);
  });
});

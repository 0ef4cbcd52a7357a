import { TICKET_FILTER_STRINGS, TICKET_PAGE_SIZE, TicketLoadAnswer } from '@parley/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type Call, type SignedUp, signUpVia } from '../../testing/api.js';
import { dialects, startTestServer } from '../../testing/support.js';
import { hasAdvancedFilters } from './ticketFilters.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;

const MIN = 60_000;
const PER_ACCOUNT = 80;

/** How a fixture ticket came by its assignees and status, and when it was first answered. */
interface Row {
  id: number;
  ticket_number: number;
  title: string;
  name: string;
  email: string;
  case_type: string;
  closed: number;
  assignee: string;
  created_at: number;
  updated_at: number;
  /** `how` of the assignment records, oldest first. */
  assignments: string[];
  /** Status changes in the audit log, oldest first: true = a person's, false = the server's. */
  statusChanges: boolean[];
  /** Minutes after received of each message, with its sender and type. */
  messages: { after: number; sender: string; type: string }[];
}

/** A small seeded generator, so the fixture is the same on every run and dialect. */
function rng(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The meanings of docs/tickets.md, written again in plain JS. */
const autoAssigned = (r: Row) => r.assignee !== '' && (r.assignments.at(-1) ?? 'manual') !== 'manual';
const autoStatus = (r: Row) => {
  const last = r.statusChanges.at(-1);
  return last === undefined ? r.closed !== 0 : last === false;
};
const isReply = (m: Row['messages'][number]) =>
  m.type !== 'system' && !['visitor', 'server', 'translatebot'].includes(m.sender);
const lateReply = (r: Row, minutes: number, now: number) =>
  r.created_at + minutes * MIN < now && !r.messages.some((m) => isReply(m) && m.after <= minutes);

describe.each(dialects)('ticket filters (%s)', (dialect) => {
  let s: Server;
  let call: Call;
  let a: SignedUp;
  let b: SignedUp;
  const fixture: Row[] = [];
  const db = () => s.handle.db;
  const now = Date.now();

  async function seed(acc: SignedUp, seedNo: number, into: Row[] | null, foreignIds: number[]) {
    const rnd = rng(seedNo);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
    for (let i = 1; i <= PER_ACCOUNT; i++) {
      // Received from 3 days ago up to a minute ago, distinct times so the default order is total.
      const created = now - Math.floor(rnd() * 3 * 24 * 60) * MIN - i;
      const assignments = rnd() < 0.7 ? Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => pick(HOWS)) : [];
      const statusChanges = rnd() < 0.6 ? Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => rnd() < 0.5) : [];
      const messages = Array.from({ length: Math.floor(rnd() * 4) }, () => ({
        after: Math.floor(rnd() * 240),
        sender: pick(['visitor', 'visitor', 'server', 'translatebot', acc.username, 'agent2']),
        type: pick(['text', 'text', 'system']),
      }));
      const row = {
        ticket_number: i,
        title: `${pick(['Refund', 'Login help', 'Invoice 50%_off'])} ${i}`,
        name: pick(['Ana Lima', 'Bo Chen', 'ana maria']),
        email: `c${i}@${pick(['example.net', 'mail.test'])}`,
        case_type: pick(['', 'complaint', 'enquiry']),
        closed: pick([0, 0, 1, 2, 3]),
        assignee: assignments.length || rnd() < 0.3 ? pick(['alice', 'bob', 'alice,bob']) : '',
        created_at: created,
        updated_at: created + i,
        assignments,
        statusChanges,
        messages,
      };
      const t = await db()
        .insertInto('tickets')
        .values({
          account_id: acc.accountId,
          ticket_number: row.ticket_number,
          title: row.title,
          channel: 'EMAIL',
          closed: row.closed,
          priority: '',
          label: '[]',
          department_id: null,
          assignee: row.assignee,
          name: row.name,
          email: row.email,
          phone: '',
          case_type: row.case_type,
          campaign_id: null,
          has_responded: row.messages.some(isReply) ? 1 : 0,
          created_at: row.created_at,
          updated_at: row.updated_at,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const id = Number(t.id);
      for (const how of assignments)
        await db()
          .insertInto('ticket_assignments')
          .values({
            account_id: acc.accountId,
            ticket_id: id,
            username: 'alice',
            assigned_by: how === 'manual' ? acc.username : 'server',
            how,
            assigned_at: created,
          })
          .execute();
      // The shape `changeTicket` writes: detail {"id": ticketId, "status": code}.
      for (const person of statusChanges)
        await db()
          .insertInto('audit_log')
          .values({
            account_id: acc.accountId,
            user_id: person ? acc.userId : null,
            actor: person ? acc.username : 'server',
            action: 'ticket.status_set',
            detail: JSON.stringify({ id, status: row.closed }),
            ip: '',
            created_at: created,
          })
          .execute();
      for (const m of messages)
        await db()
          .insertInto('messages')
          .values({
            account_id: acc.accountId,
            ticket_id: id,
            type: m.type,
            message: 'hi',
            sender: m.sender,
            client_id: null,
            created_at: created + m.after * MIN,
          })
          .execute();
      into?.push({ ...row, id });
      foreignIds.push(id);
    }
  }

  const HOWS = ['manual', 'round_robin', 'least_loaded'] as const;

  beforeAll(async () => {
    s = await startTestServer(dialect);
    call = apiClient(s.url);
    a = await signUpVia(call);
    b = await signUpVia(call);
    const aIds: number[] = [];
    await seed(a, 7, fixture, aIds);
    await seed(b, 8, null, []);
    // Another account's audit and assignment rows naming this account's tickets must change nothing here.
    for (const id of aIds.slice(0, 20)) {
      await db()
        .insertInto('audit_log')
        .values({
          account_id: b.accountId,
          user_id: b.userId,
          actor: b.username,
          action: 'ticket.status_set',
          detail: JSON.stringify({ id, status: 1 }),
          ip: '',
          created_at: now,
        })
        .execute();
      await db()
        .insertInto('ticket_assignments')
        .values({
          account_id: b.accountId,
          ticket_id: id,
          username: 'x',
          assigned_by: 'server',
          how: 'round_robin',
          assigned_at: now,
        })
        .execute();
    }
  });
  afterAll(async () => {
    await s?.stop();
  });

  const byUpdated = (x: Row, y: Row) => y.updated_at - x.updated_at || y.id - x.id;
  const adv = (v: unknown) => `advFilter=${encodeURIComponent(JSON.stringify(v))}`;
  const cases: { title: string; query: string; where: (r: Row) => boolean }[] = [
    {
      title: 'TICKET-06 TICKET-30 automatic=1: assigned by the automatic assignment',
      query: 'automatic=1',
      where: autoAssigned,
    },
    {
      title: 'TICKET-06 TICKET-30 automatic=0: assigned by a person or not at all',
      query: 'automatic=0',
      where: (r) => !autoAssigned(r),
    },
    { title: 'TICKET-06 automatic=true reads as 1', query: 'automatic=true', where: autoAssigned },
    {
      title: 'TICKET-06 TICKET-07 automaticStatus=1: the status was set by the system',
      query: 'automaticStatus=1',
      where: autoStatus,
    },
    {
      title: 'TICKET-06 TICKET-07 noAutomaticStatus=1: a person set it, or it is still the initial Open',
      query: 'noAutomaticStatus=1',
      where: (r) => !autoStatus(r),
    },
    {
      title: 'TICKET-06 automaticStatus=0 and noAutomaticStatus=0 filter nothing',
      query: 'automaticStatus=0&noAutomaticStatus=0',
      where: () => true,
    },
    {
      title: 'TICKET-06 TICKET-30 replyTAT=30: no reply within 30 minutes of receiving, and 30 minutes passed',
      query: 'replyTAT=30',
      where: (r) => lateReply(r, 30, now),
    },
    {
      title: 'TICKET-06 TICKET-30 replyTAT=120 with withReply=1: answered, but late',
      query: 'replyTAT=120&withReply=1',
      where: (r) => lateReply(r, 120, now) && r.messages.some(isReply),
    },
    {
      title: 'TICKET-06 replyTAT=5000: nothing is that old yet',
      query: 'replyTAT=5000',
      where: () => false,
    },
    {
      title: 'TICKET-06 TICKET-30 advFilter: text contains (case-insensitive, wildcards literal) and not_contains',
      query: adv([
        { field: 'title', op: 'contains', value: '50%_OFF' },
        { field: 'name', op: 'not_contains', value: 'ana' },
      ]),
      where: (r) => r.title.toLowerCase().includes('50%_off') && !r.name.toLowerCase().includes('ana'),
    },
    {
      title: 'TICKET-06 advFilter: is, is_not, starts_with',
      query: adv([
        { field: 'case_type', op: 'is', value: 'Complaint' },
        { field: 'email', op: 'starts_with', value: 'c1' },
        { field: 'name', op: 'is_not', value: 'bo chen' },
      ]),
      where: (r) => r.case_type === 'complaint' && r.email.startsWith('c1') && r.name.toLowerCase() !== 'bo chen',
    },
    {
      title: 'TICKET-06 advFilter: ticket_number gt and lt',
      query: adv([
        { field: 'ticket_number', op: 'gt', value: 10 },
        { field: 'ticket_number', op: 'lt', value: 45 },
        { field: 'ticket_number', op: 'is_not', value: 20 },
      ]),
      where: (r) => r.ticket_number > 10 && r.ticket_number < 45 && r.ticket_number !== 20,
    },
    {
      title: 'TICKET-06 advFilter [] filters nothing',
      query: adv([]),
      where: () => true,
    },
    {
      title: 'TICKET-06 TICKET-30 the filters together, with field/fieldValue',
      query: `automatic=0&noAutomaticStatus=1&replyTAT=10&field=title&fieldValue=refund&${adv([{ field: 'email', op: 'contains', value: 'example' }])}`,
      where: (r) =>
        !autoAssigned(r) &&
        !autoStatus(r) &&
        lateReply(r, 10, now) &&
        r.title.toLowerCase().includes('refund') &&
        r.email.includes('example'),
    },
  ];

  it.each(cases)('$title: same rows, order and count as the plain-JS filter', async (c) => {
    const expected = fixture.filter(c.where).sort(byUpdated);
    const r = await call('GET', `/api/ticket/load/me/all/ticket/0?${c.query}`, { token: a.token });
    expect(r.status, r.text).toBe(200);
    const body = TicketLoadAnswer.parse(r.body);
    expect(body.count).toBe(expected.length);
    expect(body.data.map((x) => x.id)).toEqual(expected.slice(0, TICKET_PAGE_SIZE).map((x) => x.id));
    // The second page continues the same order.
    if (c.query.startsWith('automatic=1')) {
      const next = await call('GET', `/api/ticket/load/me/all/ticket/${TICKET_PAGE_SIZE}?${c.query}`, {
        token: a.token,
      });
      expect(next.body.data.map((x: { id: number }) => x.id)).toEqual(
        expected.slice(TICKET_PAGE_SIZE, 2 * TICKET_PAGE_SIZE).map((x) => x.id),
      );
    }
  });

  it('TICKET-06 the fixture has rows on both sides of every filter', () => {
    for (const f of [autoAssigned, autoStatus, (r: Row) => lateReply(r, 30, now)]) {
      expect(fixture.some(f)).toBe(true);
      expect(fixture.some((r) => !f(r))).toBe(true);
    }
  });

  it('TICKET-06 TICKET-27 a status set by a person through the call leaves the automatic-status list', async () => {
    const row = fixture.find((r) => autoStatus(r) && r.closed !== 3)!;
    const has = async (q: string) => {
      const r = await call(
        'GET',
        `/api/ticket/load/me/all/ticket/0?${q}&field=ticket_number&fieldValue=${row.ticket_number}`,
        {
          token: a.token,
        },
      );
      expect(r.status, r.text).toBe(200);
      return r.body.count === 1;
    };
    expect(await has('automaticStatus=1')).toBe(true);
    expect(await has('noAutomaticStatus=1')).toBe(false);
    const set = await call('POST', '/api/ticket/status', { token: a.token, body: { id: row.id, status: 3 } });
    expect(set.status, set.text).toBe(200);
    expect(await has('automaticStatus=1')).toBe(false);
    expect(await has('noAutomaticStatus=1')).toBe(true);
    // A manual assignment makes an automatically assigned ticket a person's.
    const auto = fixture.find((r) => autoAssigned(r) && r.id !== row.id)!;
    const q = `automatic=1&field=ticket_number&fieldValue=${auto.ticket_number}`;
    expect((await call('GET', `/api/ticket/load/me/all/ticket/0?${q}`, { token: a.token })).body.count).toBe(1);
    const assign = await call('POST', '/api/ticket/assign', {
      token: a.token,
      body: { id: auto.id, assignee: [a.username] },
    });
    expect(assign.status, assign.text).toBe(200);
    expect((await call('GET', `/api/ticket/load/me/all/ticket/0?${q}`, { token: a.token })).body.count).toBe(0);
    // Put both back in the fixture's terms.
    row.closed = 3;
    row.statusChanges.push(true);
    row.updated_at = Number(set.body.data.updated_at);
    auto.assignee = a.username;
    auto.assignments.push('manual');
    auto.updated_at = Number(assign.body.data.updated_at);
  });

  it('TICKET-06 TICKET-30 unknown or contradictory values: 400 with a clear message, nothing changed', async () => {
    const state = async () => ({
      tickets: await db().selectFrom('tickets').selectAll().orderBy('id').execute(),
      events: (await db().selectFrom('events').select('id').execute()).length,
      audit: (await db().selectFrom('audit_log').select('id').execute()).length,
    });
    const before = await state();
    const cases: [string, string][] = [
      ['automatic=2', TICKET_FILTER_STRINGS.badFlag('automatic')],
      ['automatic=yes', TICKET_FILTER_STRINGS.badFlag('automatic')],
      ['automaticStatus=auto', TICKET_FILTER_STRINGS.badFlag('automaticStatus')],
      ['noAutomaticStatus=-1', TICKET_FILTER_STRINGS.badFlag('noAutomaticStatus')],
      ['automaticStatus=1&noAutomaticStatus=1', TICKET_FILTER_STRINGS.bothAutomaticStatus],
      ['replyTAT=0', TICKET_FILTER_STRINGS.badReplyTAT],
      ['replyTAT=1.5', TICKET_FILTER_STRINGS.badReplyTAT],
      ['replyTAT=soon', TICKET_FILTER_STRINGS.badReplyTAT],
      ['replyTAT=525601', TICKET_FILTER_STRINGS.badReplyTAT],
      ['advFilter=title', TICKET_FILTER_STRINGS.badAdvFilter],
      [adv({ field: 'title', op: 'contains', value: 'x' }), TICKET_FILTER_STRINGS.badAdvFilter],
      [adv([{ field: 'password', op: 'is', value: 'x' }]), TICKET_FILTER_STRINGS.badAdvFilter],
      [adv([{ field: 'title', op: 'regex', value: '.*' }]), TICKET_FILTER_STRINGS.badAdvFilter],
      [adv([{ field: 'title', op: 'gt', value: 'a' }]), TICKET_FILTER_STRINGS.badAdvFilter],
      [adv([{ field: 'ticket_number', op: 'is', value: '12' }]), TICKET_FILTER_STRINGS.badAdvFilter],
      [adv([{ field: 'ticket_number', op: 'contains', value: 1 }]), TICKET_FILTER_STRINGS.badAdvFilter],
      [adv([{ field: 'title', op: 'is', value: 'x', sql: '1=1' }]), TICKET_FILTER_STRINGS.badAdvFilter],
      [
        adv(Array.from({ length: 11 }, () => ({ field: 'title', op: 'contains', value: 'a' }))),
        TICKET_FILTER_STRINGS.badAdvFilter,
      ],
      ['appt=0&apptLessTwoDays=1', TICKET_FILTER_STRINGS.apptConflict],
      ['appt=0&apptStart=1700000000', TICKET_FILTER_STRINGS.apptConflict],
      ['fieldValue=refund', TICKET_FILTER_STRINGS.fieldValueWithoutField],
      ['withReply=2', ''],
      ['field=password&fieldValue=x', ''],
    ];
    for (const [q, message] of cases) {
      for (const path of ['/api/ticket/load/me/all/ticket/0', `/ticket/load2/department/all/ticket/0/1`]) {
        if (path.startsWith('/ticket/load2') && !message) continue;
        const r = await call('GET', `${path}?${q}`, { token: a.token });
        expect(r.status, `${path}?${q}`).toBe(400);
        if (message) expect(r.body, q).toMatchObject({ result: 'failed', description: message });
      }
    }
    expect(await state()).toEqual(before);
  });

  it('TICKET-30 the OpenAPI document still builds and names the new load-call parameters', async () => {
    const r = await call('GET', '/api/docs');
    expect(r.status, r.text.slice(0, 300)).toBe(200);
    for (const name of ['advFilter', 'automatic', 'automaticStatus', 'noAutomaticStatus', 'replyTAT'])
      expect(r.text).toContain(`"${name}"`);
    expect(r.text).toContain('/api/ticket/campaign');
  });

  it('TICKET-06 hasAdvancedFilters: true exactly when one of these filters narrows the list', () => {
    expect(hasAdvancedFilters({})).toBe(false);
    expect(hasAdvancedFilters({ automaticStatus: '0', noAutomaticStatus: '0', advFilter: [] })).toBe(false);
    expect(hasAdvancedFilters({ automatic: '0' })).toBe(true);
    expect(hasAdvancedFilters({ automaticStatus: '1' })).toBe(true);
    expect(hasAdvancedFilters({ noAutomaticStatus: '1' })).toBe(true);
    expect(hasAdvancedFilters({ replyTAT: 5 })).toBe(true);
    expect(hasAdvancedFilters({ advFilter: [{ field: 'title', op: 'is', value: 'x' }] })).toBe(true);
  });
});

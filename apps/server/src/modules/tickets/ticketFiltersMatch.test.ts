import {
  type ListFilters,
  type TicketListItem,
  type TicketListType,
  TicketLoadQuery,
  ticketMatchesList,
} from '@parley/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type Call, type SignedUp, signUpVia } from '../../testing/api.js';
import { dialects, startTestServer } from '../../testing/support.js';
import { ticketItem } from './tickets.queries.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;
const DAY = 86_400_000;
const day = (offset: number) => new Date(Date.now() + offset * DAY).toISOString().slice(0, 10);

/**
 * The web decides whether a live ticket joins the list on screen with `ticketMatchesList` (contracts); the
 * server decides which rows a load call answers. Both must agree, case by case, over one fixture.
 */
describe.each(dialects)('ticketMatchesList agrees with the load call (%s)', (dialect) => {
  let s: Server;
  let call: Call;
  let a: SignedUp;
  const items: TicketListItem[] = [];
  const labels: number[] = [];
  const deps: number[] = [];
  const campaigns: number[] = [];

  beforeAll(async () => {
    s = await startTestServer(dialect);
    call = apiClient(s.url);
    a = await signUpVia(call);
    const db = s.handle.db;
    const at = Date.now();
    for (let i = 0; i < 3; i++) {
      const l = await db
        .insertInto('labels')
        .values({
          account_id: a.accountId,
          name: `L${i}`,
          color: '#000000',
          color_dark: '#FFFFFF',
          level: 0,
          sla: 10,
          removed: 0,
          created_at: at,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      labels.push(Number(l.id));
      const d = await db
        .insertInto('departments')
        .values({ account_id: a.accountId, name: `D${i}`, created_at: at })
        .returning('id')
        .executeTakeFirstOrThrow();
      deps.push(Number(d.id));
      const c = await db
        .insertInto('campaigns')
        .values({ account_id: a.accountId, name: `C${i}`, created_at: at })
        .returning('id')
        .executeTakeFirstOrThrow();
      campaigns.push(Number(c.id));
    }
    const channels = ['EMAIL', 'CALL', 'WHATSAPP', 'LIVECHAT', 'livechat', 'MANUAL', 'FB_PM'];
    const appts: unknown[] = [day(-1), day(1), `${day(3)} 09:00`, day(40), '1/2/2026', 1767225600, 'soon', null];
    const base = Date.now() - 30 * DAY;
    const rows = Array.from({ length: 84 }, (_, i) => {
      const appt = appts[i % appts.length];
      return {
        account_id: a.accountId,
        ticket_number: i + 1,
        title: `${['Refund', 'LOGIN help', 'Invoice 50%_off', 'Boiler'][i % 4]} ${i}`,
        channel: channels[i % channels.length]!,
        closed: [0, 0, 1, 2, 3][i % 5]!,
        priority: ['H', 'M', 'L', ''][i % 4]!,
        case_type: ['', 'complaint', 'Enquiry'][i % 3]!,
        label: JSON.stringify(labels.filter((_, k) => (i >> k) % 2 === 1)),
        assignee: ['', 'alice', 'bob', 'alice,bob', 'alicea'][i % 5]!,
        department_id: i % 4 === 3 ? null : deps[i % 3]!,
        campaign_id: i % 3 === 0 ? null : campaigns[i % 3]!,
        created_at: base + i * 7 * 3_600_000,
        updated_at: base + i * 7 * 3_600_000 + (i % 6) * DAY,
        has_responded: i % 2,
        last_message_at: 0,
        name: `Customer ${['Sam', 'kim', 'ÅSA'][i % 3]}`,
        email: `c${i}@${i % 2 ? 'example.net' : 'mail.test'}`,
        phone: `+6012${String(i).padStart(5, '0')}`,
        other: JSON.stringify(appt === null ? {} : { 'Preferred Appointment Date': appt }),
      };
    });
    await db.insertInto('tickets').values(rows).execute();
    const ids = await db.selectFrom('tickets').select('id').where('account_id', '=', a.accountId).execute();
    for (const { id } of ids)
      items.push(await ticketItem(db, { accountId: a.accountId, userId: a.userId }, Number(id)));
  });
  afterAll(async () => {
    await s?.stop();
  });

  /** Every id the load call lists for a status, type and query string, over all its pages. */
  async function served(status: string, type: TicketListType, qs: string): Promise<Set<number>> {
    const out = new Set<number>();
    for (let offset = 0; ; offset += 30) {
      const r = await call('GET', `/ticket/load/t/${status}/${type}/${offset}?${qs}`, { token: a.token });
      expect(r.status, `${qs}: ${r.text}`).toBe(200);
      for (const t of r.body.data as TicketListItem[]) out.add(t.id);
      if (r.body.data.length < 30) return out;
    }
  }

  const cases: [string, TicketListType, () => string][] = [
    ['0', 'ticket', () => ''],
    ['4', 'ticket', () => ''],
    ['1', 'ticket', () => 'channelFilter=EMAIL,CALL'],
    ['4', 'livechat', () => 'channelFilter=LIVECHAT'],
    ['4', 'call2', () => ''],
    ['0', 'ticket', () => `labelFilter=${labels[0]},${labels[2]}`],
    ['4', 'ticket', () => `depFilter=${deps[1]}&priorityFilter=H,none`],
    ['4', 'ticket', () => `campaignId=${campaigns[2]}`],
    ['4', 'ticket', () => 'agent=alice'],
    ['0', 'ticket', () => 'assigned=0'],
    ['4', 'ticket', () => 'assigned=1&agent=alice'],
    ['4', 'ticket', () => 'withReply=1&sort=created'],
    ['4', 'ticket', () => `start=${Math.floor((Date.now() - 20 * DAY) / 1000)}&end=${Math.floor(Date.now() / 1000)}`],
    [
      '4',
      'ticket',
      () =>
        `received=created&start=${Math.floor((Date.now() - 25 * DAY) / 1000)}&end=${Math.floor((Date.now() - 10 * DAY) / 1000)}`,
    ],
    ['4', 'ticket', () => 'appt=1'],
    ['4', 'ticket', () => 'appt=0'],
    ['4', 'ticket', () => 'apptLessTwoDays=1'],
    [
      '4',
      'ticket',
      () => `apptStart=${Math.floor(Date.now() / 1000)}&apptEnd=${Math.floor((Date.now() + 5 * DAY) / 1000)}`,
    ],
    ['4', 'ticket', () => 'field=title&fieldValue=50%25_OFF'],
    ['4', 'ticket', () => 'field=name&fieldValue=kim'],
    ['4', 'ticket', () => 'field=email&fieldValue=EXAMPLE.net'],
    ['4', 'ticket', () => 'field=phone&fieldValue=0001'],
    ['4', 'ticket', () => 'field=ticket_number&fieldValue=13'],
    [
      '4',
      'ticket',
      () =>
        `advFilter=${encodeURIComponent(
          JSON.stringify([
            { field: 'case_type', op: 'is', value: 'enquiry' },
            { field: 'ticket_number', op: 'gt', value: 20 },
          ]),
        )}`,
    ],
    [
      '4',
      'ticket',
      () =>
        `advFilter=${encodeURIComponent(
          JSON.stringify([
            { field: 'title', op: 'not_contains', value: 'refund' },
            { field: 'email', op: 'starts_with', value: 'C1' },
          ]),
        )}`,
    ],
  ];

  const named = cases.map(([status, type, qs]) => ({
    status,
    type,
    qs,
    name: qs.toString().replace(/^\(\) =>\s*/, ''),
  }));
  it.each(named)('TICKET-30 TICKET-39 TICKET-43 status $status, type $type, $name: the same tickets', async ({
    status,
    type,
    qs,
  }) => {
    const query = TicketLoadQuery.parse(Object.fromEntries(new URLSearchParams(qs())));
    const list: ListFilters = { status: Number(status), type, query, openCodes: [0] };
    const want = await served(status, type, qs());
    const mine = new Set(items.filter((t) => ticketMatchesList(t, list) === 'match').map((t) => t.id));
    expect(want.size, 'the fixture has rows for this case').toBeGreaterThan(0);
    expect([...mine].sort()).toEqual([...want].sort());
  });

  it('TICKET-06 filters the client cannot decide: unknown for every row the server lists, no for none of them', async () => {
    for (const qs of ['replyTAT=60', 'automatic=0', `noAutomaticStatus=1&labelFilter=${labels[1]}`]) {
      const query = TicketLoadQuery.parse(Object.fromEntries(new URLSearchParams(qs)));
      const want = await served('4', 'ticket', qs);
      const list: ListFilters = { status: 4, type: 'ticket', query, openCodes: [0] };
      for (const t of items.filter((x) => want.has(x.id))) expect(ticketMatchesList(t, list), qs).toBe('unknown');
      expect(
        items.some((t) => ticketMatchesList(t, list) === 'match'),
        qs,
      ).toBe(false);
    }
  });
});

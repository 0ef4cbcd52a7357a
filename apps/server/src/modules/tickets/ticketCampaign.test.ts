import { ASSIGN_STRINGS, TICKET_STRINGS, TICKET_SYSTEM_MESSAGES, TicketChangeAnswer } from '@parley/contracts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addUserVia, apiClient, type Call, type SignedUp, signUpVia, uniq } from '../../testing/api.js';
import { collect, connectSocket, type TestSocket, waitFor } from '../../testing/sockets.js';
import { dialects, startTestServer } from '../../testing/support.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;

describe.each(dialects)('ticket campaign change (%s)', (dialect) => {
  let s: Server;
  let call: Call;
  const opened: TestSocket[] = [];
  const db = () => s.handle.db;
  let a: SignedUp;
  let b: SignedUp;
  let numbers = 0;

  const campaign = async (accountId: number, name = `C-${uniq()}`) =>
    Number(
      (
        await db()
          .insertInto('campaigns')
          .values({ account_id: accountId, name, created_at: Date.now() })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id,
    );
  const ticket = async (accountId: number, campaign_id: number | null = null) =>
    Number(
      (
        await db()
          .insertInto('tickets')
          .values({
            account_id: accountId,
            ticket_number: ++numbers,
            title: `T ${numbers}`,
            channel: 'EMAIL',
            closed: 0,
            priority: '',
            label: '[]',
            department_id: null,
            campaign_id,
            assignee: '',
            name: 'Customer',
            email: 'c@example.net',
            phone: '',
            created_at: 1_000,
            updated_at: 1_000,
          })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id,
    );
  const state = async () => ({
    tickets: await db().selectFrom('tickets').selectAll().orderBy('id').execute(),
    messages: (await db().selectFrom('messages').select('id').execute()).length,
    audit: (await db().selectFrom('audit_log').select('id').execute()).length,
    // Presence events left out: a socket closed by an earlier test may still be going offline.
    events: (await db().selectFrom('events').select('id').where('type', '<>', 'status.updated').execute()).length,
  });

  beforeAll(async () => {
    s = await startTestServer(dialect);
    call = apiClient(s.url);
    a = await signUpVia(call);
    b = await signUpVia(call);
  });
  afterEach(() => {
    for (const o of opened.splice(0)) o.disconnect();
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('TICKET-64 TICKET-01 an agent sets and clears the campaign: saved, system message, audit, updateTicket to the account only', async () => {
    const spring = await campaign(a.accountId, `Spring-${uniq()}`);
    const id = await ticket(a.accountId);
    const agent = await addUserVia(call, a.token, { username: `agent-${uniq()}`, type: 'agent' });
    const mine = collect(await connectSocket(s.url, a.token, opened), 'updateTicket');
    const theirs = collect(await connectSocket(s.url, b.token, opened), 'updateTicket');

    const set = await call('POST', '/api/ticket/campaign', { token: agent.token, body: { id, campaign_id: spring } });
    expect(set.status, set.text).toBe(200);
    const body = TicketChangeAnswer.parse(set.body);
    expect(body.data).toMatchObject({ id, campaign_id: spring });
    expect(body.data.updated_at).toBeGreaterThan(1_000);
    const row = await db().selectFrom('tickets').select('campaign_id').where('id', '=', id).executeTakeFirstOrThrow();
    expect(Number(row.campaign_id)).toBe(spring);

    const cleared = await call('POST', '/api/ticket/campaign', { token: agent.token, body: { id, campaign_id: null } });
    expect(cleared.status, cleared.text).toBe(200);
    expect(cleared.body.data.campaign_id).toBeNull();

    const msgs = await db()
      .selectFrom('messages')
      .select(['message', 'type', 'sender'])
      .where('ticket_id', '=', id)
      .orderBy('id')
      .execute();
    const campaignName = (await db()
      .selectFrom('campaigns')
      .select('name')
      .where('id', '=', spring)
      .executeTakeFirst())!.name;
    expect(msgs).toEqual([
      { message: TICKET_SYSTEM_MESSAGES.campaign(agent.username, campaignName), type: 'system', sender: 'server' },
      { message: TICKET_SYSTEM_MESSAGES.campaign(agent.username, null), type: 'system', sender: 'server' },
    ]);
    expect(msgs[0]!.message).toBe(`${agent.username} set the campaign to ${campaignName}.`);

    const audit = await db()
      .selectFrom('audit_log')
      .select(['action', 'actor', 'detail', 'account_id'])
      .where('action', '=', 'ticket.campaign_set')
      .orderBy('id')
      .execute();
    expect(audit.map((x) => [x.actor, JSON.parse(x.detail), Number(x.account_id)])).toEqual([
      [agent.username, { id, campaign_id: spring }, a.accountId],
      [agent.username, { id, campaign_id: null }, a.accountId],
    ]);

    await waitFor(() => mine.length === 2, 'two updateTicket events');
    expect(mine.map((e) => [e.id, e.campaign_id])).toEqual([
      [id, spring],
      [id, null],
    ]);
    expect(mine[0]).not.toHaveProperty('read');
    expect(theirs).toEqual([]);

    // The campaign filter of the list follows the change.
    await call('POST', '/api/ticket/campaign', { token: agent.token, body: { id, campaign_id: spring } });
    const listed = await call('GET', `/api/ticket/load/me/all/ticket/0?campaignId=${spring}`, { token: a.token });
    expect(listed.body.data.map((x: { id: number }) => x.id)).toEqual([id]);
  });

  it("TICKET-64 TICKET-28 bad input or another account's campaign or ticket: 4xx, clear message, nothing changed", async () => {
    const mineC = await campaign(a.accountId);
    const theirC = await campaign(b.accountId);
    const id = await ticket(a.accountId, mineC);
    const theirTicket = await ticket(b.accountId);
    const before = await state();
    const cases: [unknown, number, string?][] = [
      [{ id, campaign_id: theirC }, 400, ASSIGN_STRINGS.unknownCampaign],
      [{ id, campaign_id: 99_999_999 }, 400, ASSIGN_STRINGS.unknownCampaign],
      [{ id, campaign_id: 0 }, 400],
      [{ id, campaign_id: -2 }, 400],
      [{ id, campaign_id: 'spring' }, 400],
      [{ id, campaign_id: 1.5 }, 400],
      [{ id }, 400],
      [{ campaign_id: mineC }, 400],
      [{ id: theirTicket, campaign_id: null }, 404, TICKET_STRINGS.notFound],
      [{ id: theirTicket, campaign_id: theirC }, 404, TICKET_STRINGS.notFound],
    ];
    for (const [body, status, text] of cases) {
      const r = await call('POST', '/api/ticket/campaign', { token: a.token, body });
      const what = `${JSON.stringify(body)} -> ${r.text}`;
      expect(r.status, what).toBe(status);
      expect(r.body.result, what).toBe('failed');
      if (text) expect(r.body.description, what).toBe(text);
    }
    expect((await call('POST', '/api/ticket/campaign', { body: { id, campaign_id: null } })).status).toBe(401);
    expect(await state()).toEqual(before);
  });
});

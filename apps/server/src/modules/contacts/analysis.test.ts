import { CUSTOMER_ANALYSIS_STRINGS as S } from '@parley/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUserVia, apiClient, type Call, signUpVia, uniq } from '../../testing/api.js';
import { dialects, startTestServer } from '../../testing/support.js';
import { waitFor } from '../../testing/waitFor.js';

const DAY = 86_400_000;

describe.each(dialects)('customer analysis (%s)', (dialect) => {
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

  it("CONTACT-13 NAV-12 the period's customers, new and returning, topics by label, feelings, CSAT and who wrote most", async () => {
    const admin = await signUpVia(call);
    const accountId = admin.accountId;
    const made = async (title: string, name: string, email: string, channelAgeDays = 0) => {
      const r = await call('POST', '/api/ticket/create', { token: admin.token, body: { title, name, email } });
      expect(r.status, r.text).toBe(200);
      const id = r.body.data.id as number;
      if (channelAgeDays)
        await db()
          .updateTable('tickets')
          .set({ created_at: Date.now() - channelAgeDays * DAY })
          .where('id', '=', id)
          .execute();
      return id;
    };
    // Pat wrote 40 days ago and twice this month: returning. Kim wrote three times this month: new. Lee once.
    await made('Old question', 'Pat', 'pat@example.org', 40);
    const pat1 = await made('Kettle leaks', 'Pat', 'pat@example.org', 3);
    const pat2 = await made('Kettle again', 'Pat', 'pat@example.org', 1);
    const kim = [
      await made('Where is my order', 'Kim', 'kim@example.org', 2),
      await made('Order late', 'Kim', 'kim@example.org', 1),
      await made('Order arrived broken', 'Kim', 'kim@example.org'),
    ];
    const lee = await made('Invoice copy', 'Lee', 'lee@example.org', 5);
    // Resolved conversations are not open.
    await call('POST', '/api/ticket/status', { token: admin.token, body: { id: kim[0], status: 2 } });

    const [refund, delivery] = await Promise.all(
      ['Refund', 'Delivery'].map((name) =>
        db()
          .insertInto('labels')
          .values({
            account_id: accountId,
            name,
            color: '#f08c00',
            color_dark: '#f08c00',
            level: 0,
            sla: 0,
            removed: 0,
            created_at: Date.now(),
          })
          .returning('id')
          .executeTakeFirstOrThrow(),
      ),
    );
    for (const id of kim)
      await call('POST', '/api/ticket/labels', { token: admin.token, body: { id, label: [Number(delivery!.id)] } });
    await call('POST', '/api/ticket/labels', { token: admin.token, body: { id: pat1, label: [Number(refund!.id)] } });

    // What the emotion reader and the ratings left on the conversations.
    await db()
      .updateTable('tickets')
      .set({ emotion_2: JSON.stringify({ angry: 3, sad: 1 }) })
      .where('id', '=', kim[2]!)
      .execute();
    await db()
      .updateTable('tickets')
      .set({ emotion_2: JSON.stringify({ happy: 2 }) })
      .where('id', '=', pat2)
      .execute();
    await waitFor(
      async () =>
        (
          await db()
            .selectFrom('report_ticket_facts')
            .select('ticket_id')
            .where('ticket_id', 'in', [pat1, lee])
            .execute()
        ).length === 2,
      'the report facts of the rated tickets',
    );
    await db().updateTable('report_ticket_facts').set({ csat: 5 }).where('ticket_id', '=', pat1).execute();
    await db().updateTable('report_ticket_facts').set({ csat: 2 }).where('ticket_id', '=', lee).execute();

    const r = await call('GET', '/api/customer_analysis?days=30', { token: admin.token });
    expect(r.status, r.text).toBe(200);
    const a = r.body.data;
    expect(a.figures).toEqual({ customers: 3, new_customers: 2, returning: 1, conversations: 6, csat: 3.5, rated: 2 });
    expect(a.labels.map((l: { name: string; tickets: number }) => [l.name, l.tickets])).toEqual([
      ['Delivery', 3],
      ['Refund', 1],
    ]);
    expect(a.emotions).toEqual([
      { emotion: 'angry', count: 3 },
      { emotion: 'happy', count: 2 },
      { emotion: 'sad', count: 1 },
    ]);
    expect(
      a.customers.map((c: { name: string; conversations: number; open: number; emotion: string }) => [
        c.name,
        c.conversations,
        c.open,
        c.emotion,
      ]),
    ).toEqual([
      ['Kim', 3, 2, 'angry'],
      ['Pat', 2, 2, 'happy'],
      ['Lee', 1, 1, ''],
    ]);
    expect(a.customers[0].channels).toEqual(['MANUAL']);

    // The last 7 days still hold every one of them but Pat's old question; 90 days make Pat new.
    const wide = (await call('GET', '/api/customer_analysis?days=90', { token: admin.token })).body.data;
    expect(wide.figures).toMatchObject({ customers: 3, new_customers: 3, returning: 0, conversations: 7 });
  });

  it('CONTACT-13 bad periods are a 400; hidden like contacts for an agent with hide_contacts; another account sees none of it', async () => {
    const admin = await signUpVia(call);
    await call('POST', '/api/ticket/create', {
      token: admin.token,
      body: { title: 'Hello', name: 'Ada', email: 'ada@example.org' },
    });
    for (const days of ['0', '-1', '31', 'abc', '1e9']) {
      const r = await call('GET', `/api/customer_analysis?days=${days}`, { token: admin.token });
      expect(r.status, days).toBe(400);
    }
    const agent = await addUserVia(call, admin.token, { username: `hid-${uniq()}`, type: 'agent' });
    await db()
      .updateTable('users')
      .set({ permission: JSON.stringify(['hide_contacts']) })
      .where('id', '=', agent.id)
      .execute();
    const refused = await call('GET', '/api/customer_analysis', { token: agent.token });
    expect([refused.status, refused.body.description]).toEqual([403, S.hidden]);

    const other = await signUpVia(call);
    const theirs = (await call('GET', '/api/customer_analysis', { token: other.token })).body.data;
    expect(theirs.figures.customers).toBe(0);
    expect(theirs.customers).toEqual([]);
  });
});

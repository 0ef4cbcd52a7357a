import { PLANS, SURVEY_STRINGS } from '@parley/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUserVia, apiClient, type Call, signUpVia, uniq } from '../../testing/api.js';
import { dialects, startTestServer } from '../../testing/support.js';

describe.each(dialects)('satisfaction surveys (%s)', (dialect) => {
  let s: Awaited<ReturnType<typeof startTestServer>>;
  let call: Call;
  const db = () => s.handle.db;

  beforeAll(async () => {
    s = await startTestServer(dialect, { TRUST_PROXY: 'true' });
    call = apiClient(s.url);
  });
  afterAll(async () => {
    await s?.stop();
  });

  /** An account on a plan, a ticket of it; the ticket's id. */
  async function ticketOn(plan: number) {
    const admin = await signUpVia(call);
    await db().updateTable('accounts').set({ plan }).where('id', '=', admin.accountId).execute();
    const t = await call('POST', '/api/ticket/create', {
      token: admin.token,
      body: { title: `Order ${uniq()}`, name: 'Noor', email: `noor-${uniq()}@example.org` },
    });
    expect(t.status, t.text).toBe(200);
    return { admin, ticket: t.body.data.id as number };
  }

  it('CONTACT a survey link per ticket; the customer answers once; the rating is the ticket CSAT in the report', async () => {
    const { admin, ticket } = await ticketOn(PLANS.basic);
    const link = await call('POST', `/api/ticket/${ticket}/survey`, { token: admin.token });
    expect(link.status, link.text).toBe(200);
    const again = await call('POST', `/api/ticket/${ticket}/survey`, { token: admin.token });
    expect(again.body.token).toBe(link.body.token);
    const page = await call('GET', `/api/public/surveys/${link.body.token}`);
    expect(page.body).toMatchObject({ company: admin.company, rating: null, ticket_number: 1 });

    const answer = await call('POST', `/api/public/surveys/${link.body.token}`, {
      body: { rating: 4, comment: 'Quick and kind.' },
    });
    expect(answer.status, answer.text).toBe(200);
    const twice = await call('POST', `/api/public/surveys/${link.body.token}`, { body: { rating: 1 } });
    expect([twice.status, twice.body.description]).toEqual([409, SURVEY_STRINGS.answered]);
    expect((await call('GET', `/api/public/surveys/${link.body.token}`)).body.rating).toBe(4);

    const today = new Date().toISOString().slice(0, 10);
    const report = await call('GET', `/report/generate?type=all&status=all&startDate=2000-01-01&endDate=${today}`, {
      token: admin.token,
    });
    expect(report.status, report.text).toBe(200);
    const rows = Object.values(report.body.data).flat() as { id: number; rating?: number; reason?: string }[];
    expect(rows.find((r) => r.id === ticket)).toMatchObject({ rating: 4, reason: 'Quick and kind.' });
  });

  it('CONTACT a guessed token, a bad rating, another account, a plan without surveys: clear answers, nothing kept', async () => {
    const { admin, ticket } = await ticketOn(PLANS.basic);
    const token = (await call('POST', `/api/ticket/${ticket}/survey`, { token: admin.token })).body.token as string;
    expect((await call('GET', `/api/public/surveys/${token}x`)).status).toBe(404);
    expect((await call('POST', `/api/public/surveys/${token.slice(1)}`, { body: { rating: 5 } })).status).toBe(404);
    for (const body of [{ rating: 0 }, { rating: 6 }, { rating: 4.5 }, {}, { rating: 3, comment: 'x'.repeat(2001) }]) {
      const r = await call('POST', `/api/public/surveys/${token}`, { body });
      expect(r.status, JSON.stringify(body)).toBe(400);
    }
    const stored = await db()
      .selectFrom('ticket_surveys')
      .select('rating')
      .where('token', '=', token)
      .executeTakeFirst();
    expect(stored?.rating).toBeNull();
    // Another account's agent cannot make a link for this ticket.
    const other = await signUpVia(call);
    expect((await call('POST', `/api/ticket/${ticket}/survey`, { token: other.token })).status).toBe(404);
    // A trial (Starter's entitlements) has no surveys.
    const trial = await ticketOn(PLANS.trial);
    const refused = await call('POST', `/api/ticket/${trial.ticket}/survey`, { token: trial.admin.token });
    expect([refused.status, refused.body.description]).toEqual([403, SURVEY_STRINGS.notOnPlan]);
    const agent = await addUserVia(call, admin.token, { username: `ag-${uniq()}`, type: 'agent' });
    expect((await call('POST', `/api/ticket/${ticket}/survey`, { token: agent.token })).body.token).toBe(token);
  });
});

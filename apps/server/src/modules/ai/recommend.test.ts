import { TicketRecommendation } from '@parley/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUserVia, apiClient, type Call, type SignedUp, signUpVia, uniq } from '../../testing/api.js';
import { dialects, startTestServer } from '../../testing/support.js';
import { sampleTickets, TOPICS } from './classify/sampleTickets.js';
import { seedLabel, seedTicket } from './classify/seedTickets.js';

/**
 * AI-01, AI-08: `GET /api/wauchat/ticket_recommendation` and `POST /api/wauchat/feedback` over HTTP: who may
 * ask, about which message, what bad input gets, and the answer's shape.
 */
describe.each(dialects)('ticket recommendation (%s)', (dialect) => {
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

  const ask = (token: string | undefined, q: Record<string, string | number>) =>
    call(
      'GET',
      `/api/wauchat/ticket_recommendation?${new URLSearchParams(Object.entries(q).map(([k, v]) => [k, String(v)]))}`,
      { token },
    );
  const feedback = (token: string | undefined, body: unknown) => call('POST', '/api/wauchat/feedback', { token, body });

  /** An account with 120 labelled tickets (replies included), a published article, and a new customer message. */
  async function desk(): Promise<{ a: SignedUp; messageId: number; articleId: number }> {
    const a = await signUpVia(call);
    const ids = new Map<string, number>();
    for (const t of TOPICS) ids.set(t, await seedLabel(db(), a.accountId, t));
    for (const t of sampleTickets(120, 5))
      await seedTicket(db(), a.accountId, {
        labels: [ids.get(t.label)!],
        messages: t.messages.map((text) => ({ sender: 'visitor', text })),
      });
    const art = await call('POST', '/api/kb/articles', {
      token: a.token,
      body: {
        type: 'kb',
        lang: 'en',
        title: 'When will my refund arrive?',
        body: 'Refunds reach the original card within ten working days of the return arriving at our warehouse.\n\nA refund to an expired card comes back to us; we then pay it by bank transfer.',
      },
    });
    expect(art.status, art.text).toBe(200);
    expect((await call('POST', `/api/kb/articles/${art.body.data.id}/publish`, { token: a.token })).status).toBe(200);
    const now = await seedTicket(db(), a.accountId, {
      messages: [{ sender: 'visitor', text: 'I returned the shoes two weeks ago and my refund has still not arrived' }],
    });
    return { a, messageId: now.messages[0]!, articleId: art.body.data.id };
  }

  it('AI-01 AI-08 the offline engine answers with classification, what to say, the reading and the scam reading', async () => {
    const { a, messageId, articleId } = await desk();
    const r = await ask(a.token, {
      text: 'I returned the shoes two weeks ago and my refund has still not arrived',
      messageId,
      channel: 'EMAIL',
      _token: 'ignored',
    });
    expect(r.status, r.text).toBe(200);
    const body = TicketRecommendation.parse(r.body);
    expect(body.engine).toBe('offline');
    expect(body.classification).toMatchObject({ status: 'ok', label: 'Refund' });
    expect(body.what_to_say?.source).toEqual({ kind: 'article', id: articleId, title: 'When will my refund arrive?' });
    expect(body.what_to_say?.text).toContain('Refunds reach the original card');
    expect(body.scam).toEqual(body.results.scam);
    expect(body.results.next_action.value).toEqual(expect.any(String));

    // The agent inserts it: a use is recorded; then dismisses it: the verdict is replaced, not added.
    const used = await feedback(a.token, {
      messageId,
      kind: 'what_to_say',
      verdict: 'used',
      source: { kind: 'article', id: articleId },
    });
    expect(used.status, used.text).toBe(200);
    expect(used.body).toEqual({ result: 'success' });
    expect(
      (
        await feedback(a.token, {
          messageId,
          kind: 'what_to_say',
          verdict: 'dismissed',
          source: { kind: 'article', id: articleId },
        })
      ).status,
    ).toBe(200);
    expect((await feedback(a.token, { messageId, kind: 'next_action', verdict: 'used' })).status).toBe(200);
    const rows = await db()
      .selectFrom('ai_feedback')
      .select(['kind', 'verdict', 'source_kind', 'source_id', 'user_id'])
      .where('account_id', '=', a.accountId)
      .orderBy('kind')
      .execute();
    expect(rows.map((x) => ({ ...x, source_id: Number(x.source_id), user_id: Number(x.user_id) }))).toEqual([
      { kind: 'next_action', verdict: 'used', source_kind: '', source_id: 0, user_id: a.userId },
      { kind: 'what_to_say', verdict: 'dismissed', source_kind: 'article', source_id: articleId, user_id: a.userId },
    ]);
  });

  it("AI-08 sign-in required; another account's message, a chat the caller may not read and a missing source are 404; nothing written", async () => {
    const { a, messageId, articleId } = await desk();
    const q = { text: 'refund', messageId, channel: 'EMAIL' };
    expect((await ask(undefined, q)).status).toBe(401);
    expect((await feedback(undefined, { messageId, kind: 'hint', verdict: 'used' })).status).toBe(401);
    const b = await signUpVia(call);
    const other = await ask(b.token, q);
    expect(other.status).toBe(404);
    expect(other.text).not.toContain('refund');
    expect((await feedback(b.token, { messageId, kind: 'hint', verdict: 'dismissed' })).status).toBe(404);
    // B's own message, but A's article as the source: not found.
    const bMsg = (await seedTicket(db(), b.accountId, { messages: [{ sender: 'visitor', text: 'hi there' }] }))
      .messages[0]!;
    expect(
      (
        await feedback(b.token, {
          messageId: bMsg,
          kind: 'what_to_say',
          verdict: 'used',
          source: { kind: 'article', id: articleId },
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await feedback(b.token, {
          messageId: bMsg,
          kind: 'what_to_say',
          verdict: 'used',
          source: { kind: 'reply', id: messageId },
        })
      ).status,
    ).toBe(404);

    // A Workspace chat of two team mates: a third may not read it, so its messages are not found for them.
    const ann = await addUserVia(call, a.token, { username: `ann-${uniq()}`, type: 'agent' });
    const bob = await addUserVia(call, a.token, { username: `bob-${uniq()}`, type: 'agent' });
    const cy = await addUserVia(call, a.token, { username: `cy-${uniq()}`, type: 'agent' });
    const chat = await call('POST', '/api/chat/create', { token: ann.token, body: { members: [bob.id] } });
    expect(chat.status, chat.text).toBe(200);
    const sent = await call('POST', '/api/ticket/message', {
      token: ann.token,
      body: { ticket_id: chat.body.data.id, message: 'secret refund plan' },
    });
    expect(sent.status, sent.text).toBe(200);
    const chatMsg = { text: 'refund', messageId: sent.body.data.id, channel: 'CHAT' };
    expect((await ask(cy.token, chatMsg)).status).toBe(404);
    expect((await feedback(cy.token, { messageId: sent.body.data.id, kind: 'hint', verdict: 'used' })).status).toBe(
      404,
    );
    expect((await ask(bob.token, chatMsg)).status).toBe(200);
    const written = await db()
      .selectFrom('ai_feedback')
      .select('id')
      .where('account_id', 'in', [a.accountId, b.accountId])
      .execute();
    expect(written).toEqual([]);
  });

  it('AI-08 bad input: empty text, no messageId, no channel, a bad verdict are 400; a 100 kB text, emoji only and mixed scripts are answered', async () => {
    const { a, messageId } = await desk();
    const base = { text: 'refund', messageId, channel: 'EMAIL' };
    for (const q of [
      { ...base, text: '' },
      { ...base, text: '   ' },
      { text: 'refund', channel: 'EMAIL' },
      { ...base, messageId: 'abc' },
      { ...base, messageId: -1 },
      { text: 'refund', messageId },
      { ...base, text: 'x'.repeat(100_001) },
    ]) {
      const r = await ask(a.token, q as Record<string, string | number>);
      expect(r.status, JSON.stringify(q).slice(0, 80)).toBe(400);
      expect(r.body.result).toBe('failed');
    }
    for (const body of [
      {},
      { messageId, kind: 'what_to_say', verdict: 'used' },
      { messageId, kind: 'nope', verdict: 'used' },
      { messageId, kind: 'hint', verdict: 'maybe' },
      { messageId: 'x', kind: 'hint', verdict: 'used' },
      { messageId, kind: 'what_to_say', verdict: 'used', source: { kind: 'page', id: 1 } },
    ]) {
      const r = await feedback(a.token, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
    }
    const refundWords = 'my refund has not arrived after the return. ';
    const long = refundWords.repeat(Math.floor(100_000 / refundWords.length));
    for (const text of [
      long,
      '😡😡😡🙏',
      'Мой возврат не пришёл، 我的退款 refund never arrived ✈️',
      '<script>alert(1)</script>',
    ]) {
      const started = Date.now();
      const r = await ask(a.token, { ...base, text });
      expect(r.status, `${text.slice(0, 40)}: ${r.text.slice(0, 200)}`).toBe(200);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(TicketRecommendation.safeParse(r.body).success).toBe(true);
    }
    // A long message about a refund still finds the refund article.
    expect((await ask(a.token, { ...base, text: long })).body.what_to_say?.source.kind).toBe('article');
    expect((await ask(a.token, { ...base, text: '😡😡😡🙏' })).body.what_to_say).toBeNull();
  });

  it('AI-01 AI-08 an account with 10 labelled tickets is told "not enough data" and still gets the reading', async () => {
    const a = await signUpVia(call);
    const label = await seedLabel(db(), a.accountId, 'Billing');
    let id = 0;
    for (let i = 0; i < 10; i++)
      id = (
        await seedTicket(db(), a.accountId, {
          labels: [label],
          messages: [{ sender: 'visitor', text: `Invoice ${i} wrong` }],
        })
      ).messages[0]!;
    const r = await ask(a.token, { text: 'My invoice is wrong', messageId: id, channel: 'EMAIL' });
    expect(r.status, r.text).toBe(200);
    expect(r.body.classification).toEqual({ status: 'not_enough_data', labelled: 10, needed: 50 });
    expect(r.body.what_to_say).toBeNull();
    expect(r.body.engine).toBe('offline');
  });
});

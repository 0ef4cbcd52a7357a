import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthContext } from '../../../platform/auth/sessions.js';
import { apiClient, type SignedUp, signUpVia } from '../../../testing/api.js';
import { dialects, startTestServer } from '../../../testing/support.js';
import { Conversations, staffConversations } from '../../messages/index.js';
import { seedTicket } from '../classify/seedTickets.js';
import { Bm25Index } from './bm25.js';
import { recordFeedback } from './recordFeedback.js';
import { excerpt } from './sources.js';
import { feedbackFactor, retrievalTerms, similarEnough, WhatToSayIndex } from './whatToSay.js';

describe('BM25', () => {
  it('AI-01 ranks by shared rare words, length-normalised; reports the words each added', () => {
    const index = new Bm25Index([
      { terms: ['password', 'reset', 'email', 'arrive'], item: 'reset' },
      { terms: ['parcel', 'tracking', 'delivered', 'email'], item: 'parcel' },
      { terms: ['invoice', 'vat', 'copy', 'email', 'email', 'email'], item: 'invoice' },
    ]);
    const [best, second] = index.search(['password', 'reset', 'email']);
    expect(best?.item).toBe('reset');
    expect(best?.matched.map((m) => m.term)).toEqual(
      ['password', 'reset', 'email'].sort((a, b) => index.idf(b) - index.idf(a)),
    );
    expect(second!.score).toBeLessThan(best!.score);
    expect(second!.matched.map((m) => m.term)).toEqual(['email']);
    expect(index.search(['zebra'])).toEqual([]);
  });

  it('AI-01 words match across their forms; the floor wants a share of the message; feedback moves a score within bounds; an article inserts its first paragraphs', () => {
    expect(
      retrievalTerms('Refunds refunded refund; arrive arrived arriving; shipping ship; charges charged').terms,
    ).toEqual(['refund', 'refund', 'refund', 'arriv', 'arriv', 'arriv', 'ship', 'ship', 'charg', 'charg']);
    expect(retrievalTerms('Rückerstattung address status').terms).toEqual(['rückerstattung', 'address', 'status']);
    expect(retrievalTerms('Refunds arrived').written).toEqual(
      new Map([
        ['refund', 'refunds'],
        ['arriv', 'arrived'],
      ]),
    );
    expect(similarEnough(1, 2)).toBe(true);
    expect(similarEnough(1, 4)).toBe(false);
    expect(similarEnough(2, 10)).toBe(true);
    expect(similarEnough(2, 20)).toBe(false);
    expect(similarEnough(4, 60)).toBe(true);
    expect(similarEnough(0, 0)).toBe(false);
    expect(feedbackFactor(0, 0)).toBe(1);
    expect(feedbackFactor(2, 0)).toBeCloseTo(1.2);
    expect(feedbackFactor(0, 1)).toBeCloseTo(0.8);
    expect(feedbackFactor(0, 100)).toBe(0.4);
    expect(feedbackFactor(100, 0)).toBe(1.5);
    expect(excerpt('First.\n\nSecond.\n\nThird.')).toBe('First.\n\nSecond.\n\nThird.');
    expect(excerpt(`${'a'.repeat(500)}\n\n${'b'.repeat(200)}`)).toBe('a'.repeat(500));
    expect(excerpt('x'.repeat(900)).length).toBe(600);
  });
});

describe.each(dialects)('what to say (%s)', (dialect) => {
  let s: Awaited<ReturnType<typeof startTestServer>>;
  let index: WhatToSayIndex;
  const db = () => s.handle.db;
  const call = () => apiClient(s.url);
  const conversations = new Conversations(staffConversations());
  const authOf = (a: SignedUp): AuthContext => ({
    sessionId: 0,
    accountId: a.accountId,
    userId: a.userId,
    username: a.username,
    name: a.name,
    type: 'admin',
  });

  beforeAll(async () => {
    s = await startTestServer(dialect);
    index = new WhatToSayIndex(db(), 'https://help.example.com');
  });
  afterAll(async () => {
    await s?.stop();
  });

  async function article(a: SignedUp, title: string, body: string, publish = true) {
    const r = await call()('POST', '/api/kb/articles', {
      token: a.token,
      body: { type: 'kb', lang: 'en', title, body },
    });
    expect(r.status, r.text).toBe(200);
    if (publish)
      expect((await call()('POST', `/api/kb/articles/${r.body.data.id}/publish`, { token: a.token })).status).toBe(200);
    return r.body.data.id as number;
  }

  it('AI-01 a published article about the topic is the source, with its first paragraphs and public link; a draft is not; an unpublished one goes at once', async () => {
    const a = await signUpVia(call());
    const id = await article(
      a,
      'Resetting your password',
      'If the password reset email does not arrive within five minutes, check your spam folder.\n\nStill nothing? Ask us to send the reset link again.\n\n## Locked out\n\nAfter five failed attempts the account is locked for 15 minutes.',
    );
    await article(a, 'Shipping to Canada', 'We ship to Canada with tracked courier delivery.', false);
    const w = await index.suggest(a.accountId, 'Hi, the password reset email never arrives, what can I do?');
    expect(w?.source).toEqual({ kind: 'article', id, title: 'Resetting your password' });
    expect(w?.text).toContain('If the password reset email does not arrive within five minutes');
    expect(w?.text).toMatch(/\nhttps:\/\/help\.example\.com\/support\/kb\/en\/\d+\?site=/);
    expect(w?.cues.map((c) => c.cue)).toEqual(expect.arrayContaining(['password', 'reset']));
    expect(w?.score).toBeGreaterThan(0);
    expect(await index.suggest(a.accountId, 'Do you ship to Canada?')).toBeNull();

    expect((await call()('POST', `/api/kb/articles/${id}/unpublish`, { token: a.token })).status).toBe(200);
    expect(await index.suggest(a.accountId, 'the password reset email never arrives')).toBeNull();
  });

  it("AI-01 a team member's past reply to a similar question is found (not the asked ticket's own); nothing similar is null", async () => {
    const a = await signUpVia(call());
    const past = await seedTicket(db(), a.accountId, {
      messages: [
        { sender: 'visitor', text: 'The tracking number says my parcel was delivered but nothing came.' },
        {
          sender: a.username,
          text: 'Sorry about that! I have opened a claim with the courier; you will hear back within 48 hours.',
        },
        { sender: 'visitor', text: 'ok thanks' },
        { sender: a.username, text: 'You are welcome.' },
      ],
    });
    const now = await seedTicket(db(), a.accountId, {
      messages: [{ sender: 'visitor', text: 'Tracking shows delivered, but the parcel never came to my door' }],
    });
    const w = await index.suggest(
      a.accountId,
      'Tracking shows delivered, but the parcel never came to my door',
      now.id,
    );
    expect(w).toMatchObject({
      source: { kind: 'reply', id: past.messages[1], title: String(past.number) },
      text: 'Sorry about that! I have opened a claim with the courier; you will hear back within 48 hours.',
    });
    expect(w?.cues.map((c) => c.cue)).toEqual(expect.arrayContaining(['tracking', 'parcel', 'delivered']));
    // The ticket asked about is not searched for its own answer.
    expect(
      await index.suggest(a.accountId, 'The tracking number says my parcel was delivered but nothing came.', past.id),
    ).toBeNull();
    for (const text of ['Do you sell gift cards for birthdays?', '🙂🙂🎉', 'ok', 'the and of it is']) {
      expect(await index.suggest(a.accountId, text, now.id), text).toBeNull();
    }
  });

  it('AI-01 a dismissal lowers a source and a use raises one; feedback counts per account', async () => {
    const a = await signUpVia(call());
    const asked = await seedTicket(db(), a.accountId, { messages: [{ sender: 'visitor', text: 'export csv?' }] });
    const one = await seedTicket(db(), a.accountId, {
      messages: [
        { sender: 'visitor', text: 'How do I export my data to a CSV file?' },
        { sender: a.username, text: 'Go to Settings, then Export, and choose CSV as the format.' },
      ],
    });
    const two = await seedTicket(db(), a.accountId, {
      messages: [
        { sender: 'visitor', text: 'How can I export my data as a CSV file?' },
        { sender: a.username, text: 'Use the Export button on the Reports page to download a CSV file.' },
      ],
    });
    const ask = () => index.suggest(a.accountId, 'how do I export my data to csv', asked.id);
    const before = await ask();
    expect([one.messages[1], two.messages[1]]).toContain(before?.source.id);
    const first = before!.source.id;
    await recordFeedback(db(), conversations, authOf(a), {
      messageId: asked.messages[0]!,
      kind: 'what_to_say',
      verdict: 'dismissed',
      source: { kind: 'reply', id: first },
    });
    const after = await ask();
    expect(after).not.toBeNull();
    if (after!.source.id === first) expect(after!.score).toBeLessThan(before!.score);
    else expect(after!.source.id).not.toBe(first);
    // The same agent dismissing again on the same message changes nothing: one verdict a message.
    await recordFeedback(db(), conversations, authOf(a), {
      messageId: asked.messages[0]!,
      kind: 'what_to_say',
      verdict: 'dismissed',
      source: { kind: 'reply', id: first },
    });
    expect(await ask()).toEqual(after);
    // A use of the dismissed one turns the verdict round: it is back where it was, or higher.
    await recordFeedback(db(), conversations, authOf(a), {
      messageId: asked.messages[0]!,
      kind: 'what_to_say',
      verdict: 'used',
      source: { kind: 'reply', id: first },
    });
    const used = await ask();
    expect(used?.source.id).toBe(first);
    expect(used!.score).toBeGreaterThanOrEqual(before!.score);
  });

  it("AI-01 another account's articles and replies never reach an account's suggestions, nor its feedback", async () => {
    const a = await signUpVia(call());
    const b = await signUpVia(call());
    await article(a, 'Refund policy', 'Refunds are paid back to the original card within ten working days.');
    await seedTicket(db(), a.accountId, {
      messages: [
        { sender: 'visitor', text: 'My kiln cracked the glaze on every pot' },
        { sender: a.username, text: 'Lower the firing temperature to cone six and glaze thinner.' },
      ],
    });
    const bTicket = await seedTicket(db(), b.accountId, { messages: [{ sender: 'visitor', text: 'hello' }] });
    expect(await index.suggest(a.accountId, 'when is my refund paid back to my card?')).not.toBeNull();
    expect(await index.suggest(b.accountId, 'when is my refund paid back to my card?', bTicket.id)).toBeNull();
    expect(await index.suggest(b.accountId, 'my kiln cracked the glaze on my pot', bTicket.id)).toBeNull();
    // B cannot vote on A's message.
    const aTicket = await seedTicket(db(), a.accountId, { messages: [{ sender: 'visitor', text: 'refund card' }] });
    await expect(
      recordFeedback(db(), conversations, authOf(b), {
        messageId: aTicket.messages[0]!,
        kind: 'hint',
        verdict: 'dismissed',
      }),
    ).rejects.toMatchObject({ status: 404 });
  });
});

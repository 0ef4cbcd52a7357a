import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, signUpVia } from '../../../testing/api.js';
import { dialects, startTestServer } from '../../../testing/support.js';
import { Classifiers, MIN_LABELLED, trainAccount, trainClassifiers } from './classifier.js';
import { classify, trainNaiveBayes } from './naiveBayes.js';
import { sampleTickets, TOPICS, type Topic } from './sampleTickets.js';
import { seedLabel, seedTicket } from './seedTickets.js';
import { terms } from './terms.js';

describe('naive Bayes', () => {
  it('AI-01 learns from word counts with Laplace smoothing; explains with the words that weighed most; safe with any word', () => {
    const m = trainNaiveBayes(
      [
        { label: 'a', words: ['apple', 'pear', 'constructor'] },
        { label: 'a', words: ['apple', 'plum'] },
        { label: 'b', words: ['car', 'bus', 'constructor'] },
        { label: 'b', words: ['car', 'train'] },
      ],
      { minDocs: 1 },
    );
    const r = classify(m, ['apple', 'car', 'apple', 'constructor', 'tostring']);
    expect(r?.label).toBe('a');
    expect(r?.confidence).toBeGreaterThan(0.5);
    expect(r?.confidence).toBeLessThanOrEqual(1);
    expect(r?.cues.map((c) => c.word)).toEqual(['apple']);
    // Unknown words only: nothing to go on.
    expect(classify(m, ['zebra'])).toBeNull();
    expect(classify(trainNaiveBayes([]), ['apple'])).toBeNull();
  });
});

describe.each(dialects)('classification by the account (%s)', (dialect) => {
  let s: Awaited<ReturnType<typeof startTestServer>>;
  const db = () => s.handle.db;

  beforeAll(async () => {
    s = await startTestServer(dialect);
  });
  afterAll(async () => {
    await s?.stop();
  });

  /** An account with the sample tickets, each label a label of its own; the label ids by topic. */
  async function seeded(n: number, seed: number) {
    const acc = await signUpVia(apiClient(s.url));
    const ids = new Map<Topic, number>();
    for (const t of TOPICS) ids.set(t, await seedLabel(db(), acc.accountId, t));
    for (const t of sampleTickets(n, seed))
      await seedTicket(db(), acc.accountId, {
        labels: [ids.get(t.label)!],
        messages: [
          ...t.messages.map((text) => ({ sender: 'visitor', text })),
          { sender: acc.username, text: 'Thanks for writing, we are on it.' },
        ],
      });
    return { acc, ids };
  }

  it('AI-01 trained on 500 labelled tickets of an account, it labels held-out tickets better than the majority-class baseline', async () => {
    const { acc } = await seeded(500, 7);
    const classifiers = new Classifiers(db());
    const trained = await classifiers.train(acc.accountId);
    expect(trained.model).not.toBeNull();
    expect(trained.labelled).toBe(500);

    const training = sampleTickets(500, 7);
    const counts = new Map<string, number>();
    for (const t of training) counts.set(t.label, (counts.get(t.label) ?? 0) + 1);
    const majority = [...counts].sort((a, b) => b[1] - a[1])[0]![0];
    const heldOut = sampleTickets(300, 99);
    let right = 0;
    let baseline = 0;
    let confident = 0;
    for (const t of heldOut) {
      const r = await classifiers.classify(acc.accountId, t.messages.join('\n'));
      expect(r.status).toBe('ok');
      if (r.status !== 'ok') continue;
      expect(r.confidence).toBeGreaterThanOrEqual(0);
      expect(r.confidence).toBeLessThanOrEqual(1);
      expect(r.cues.length).toBeGreaterThan(0);
      if (r.label === t.label) right++;
      if (majority === t.label) baseline++;
      if (r.confidence > 0.5) confident++;
    }
    const accuracy = right / heldOut.length;
    const base = baseline / heldOut.length;
    console.log(
      `classification (${dialect}): accuracy ${accuracy.toFixed(3)} vs majority-class baseline ${base.toFixed(3)} ` +
        `(${majority}) on ${heldOut.length} held-out tickets; ${confident} answered with confidence > 0.5`,
    );
    expect(accuracy).toBeGreaterThan(base + 0.3);
    // The confidence is tempered, not always 1: some answers are less sure than others.
    expect(confident).toBeLessThan(heldOut.length);

    // A clear message: the label and the words that made it.
    const r = await classifiers.classify(acc.accountId, 'The password reset email never arrives and I am locked out');
    expect(r).toMatchObject({ status: 'ok', label: 'Login' });
    if (r.status === 'ok') expect(r.cues.map((c) => c.cue)).toEqual(expect.arrayContaining(['password']));
  });

  it('AI-01 an account with 10 labelled tickets gets "not enough data"; one label alone is not enough either', async () => {
    const small = await seeded(10, 3);
    const classifiers = new Classifiers(db());
    expect(await classifiers.classify(small.acc.accountId, 'I was charged twice')).toEqual({
      status: 'not_enough_data',
      labelled: 10,
      needed: MIN_LABELLED,
    });
    const row = await db()
      .selectFrom('ai_models')
      .selectAll()
      .where('account_id', '=', small.acc.accountId)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ model: '', labelled: 10, needed: MIN_LABELLED });

    // 60 tickets, all labelled Billing: more are needed, of another label.
    const one = await signUpVia(apiClient(s.url));
    const billing = await seedLabel(db(), one.accountId, 'Billing');
    for (let i = 0; i < 60; i++)
      await seedTicket(db(), one.accountId, {
        labels: [billing],
        messages: [{ sender: 'visitor', text: `Invoice number ${i} is wrong` }],
      });
    const r = await new Classifiers(db()).classify(one.accountId, 'Invoice is wrong');
    expect(r).toEqual({ status: 'not_enough_data', labelled: 60, needed: 65 });
  });

  it("AI-01 another account's tickets never train an account's model; the scheduled task trains each account on its own", async () => {
    const a = await seeded(120, 11);
    const b = await signUpVia(apiClient(s.url));
    const garden = await seedLabel(db(), b.accountId, 'Gardening');
    const pottery = await seedLabel(db(), b.accountId, 'Pottery');
    for (let i = 0; i < 60; i++)
      await seedTicket(db(), b.accountId, {
        labels: [i % 2 ? garden : pottery],
        messages: [
          {
            sender: 'visitor',
            text: i % 2 ? `My tulips and roses wilted, bed ${i}` : `The kiln cracked my clay vase ${i}`,
          },
        ],
      });
    // A ticket of B's whose labels are A's ids (a forged row): its labels are not B's, so it trains nothing.
    await seedTicket(db(), b.accountId, {
      labels: [a.ids.get('Billing')!],
      messages: [{ sender: 'visitor', text: 'invoice invoice invoice tulips' }],
    });
    // The task (as the scheduler runs it) trains both: each has enough labelled tickets and no model yet.
    await trainClassifiers(db(), new Classifiers(db())).run(Date.now());
    const rows = await db()
      .selectFrom('ai_models')
      .select(['account_id', 'model', 'labelled'])
      .where('account_id', 'in', [a.acc.accountId, b.accountId])
      .execute();
    const modelOf = (id: number) => JSON.parse(rows.find((r) => Number(r.account_id) === id)!.model);
    const ma = modelOf(a.acc.accountId);
    const mb = modelOf(b.accountId);
    expect(ma.classes.map((c: { label: string }) => c.label).sort()).toEqual([...TOPICS].sort());
    expect(mb.classes.map((c: { label: string }) => c.label).sort()).toEqual(['Gardening', 'Pottery']);
    const vocabOf = (m: { classes: { counts: Record<string, number> }[] }) =>
      new Set(m.classes.flatMap((c) => Object.keys(c.counts)));
    expect(vocabOf(ma).has('tulips')).toBe(false);
    expect(vocabOf(mb).has('invoice')).toBe(false);
    expect(Number(rows.find((r) => Number(r.account_id) === b.accountId)!.labelled)).toBe(60);

    const cb = new Classifiers(db());
    expect(await cb.classify(b.accountId, 'my roses and tulips')).toMatchObject({ status: 'ok', label: 'Gardening' });
    // A's words mean nothing to B's model.
    expect((await cb.classify(b.accountId, 'invoice charged password refund')).status).toBe('not_enough_data');

    // Retraining replaces the model; an account without enough tickets keeps "not enough data".
    const again = await trainAccount(db(), b.accountId);
    expect(again.labelled).toBe(60);
  });

  it('AI-01 the words of a ticket are its customer messages only', () => {
    expect(terms('<p>Hi, I was charged TWICE for order 48213!</p>')).toEqual(['charged', 'twice', 'order']);
  });
});

import { AiAnalysis } from '@parley/contracts';
import { describe, expect, it } from 'vitest';
import { analyseMessage } from './analyse.js';
import { MAX_CHARS } from './match.js';

const valid = (text: string) => {
  const a = analyseMessage(text);
  expect(AiAnalysis.parse(a)).toEqual(a);
  for (const r of [a.personality, a.sales, a.scam, a.next_action]) {
    expect(r.confidence).toBeGreaterThanOrEqual(0);
    expect(r.confidence).toBeLessThanOrEqual(1);
  }
  return a;
};

describe('the offline engine', () => {
  it('AI-01 bad input gets an answer, never a throw: empty, blanks, emoji only, mixed scripts, markup', () => {
    for (const text of [
      '',
      '   \n\t ',
      '😀😀🔥👍',
      '🙂',
      'Hello Привет 你好 مرحبا नमस्ते — refund?',
      '<p></p>',
      '&nbsp;',
      '\u0000\uFFFF',
    ])
      expect(valid(text).next_action.value).toBeTypeOf('string');
    expect(valid('').emotion).toBeNull();
    expect(valid('😀😀🔥👍').scam.value).toBeNull();
    // A mixed-script message still reads its Latin part.
    expect(valid('Здравствуйте! 你好. Can I order 3 of these? شكرا').sales.value).toBe('buying_intent');
  });

  it('AI-01 a 100 kB message is read within its first MAX_CHARS characters, fast', () => {
    const big = 'I would like to know more about your products and services. '.repeat(1700);
    expect(big.length).toBeGreaterThan(100_000);
    const t0 = performance.now();
    const a = valid(big);
    expect(performance.now() - t0).toBeLessThan(500);
    expect(a.personality.value).toBe('detailed');
    // What lies past the cap is not read: a scam phrase at the very end changes nothing.
    const tail = `${'a '.repeat(MAX_CHARS)} Our bank details have changed, pay the invoice to the new account.`;
    expect(valid(tail).scam.value).toBeNull();
    expect(valid(tail.slice(2 * MAX_CHARS)).scam.value).toBe('payment_redirection');
    // One unbroken 100 kB word, and 100 kB of emoji.
    expect(valid('x'.repeat(100_000)).next_action.value).toBe('reply');
    expect(valid('😀'.repeat(50_000)).scam.value).toBeNull();
  });

  it('AI-09 a reading the engine has nothing to say about has confidence 1 (the contract default), and so has the plain reply', () => {
    const a = valid('ok');
    expect(a.scam).toEqual({ value: null, confidence: 1, cues: [] });
    expect(a.sales).toEqual({ value: null, confidence: 1, cues: [] });
    expect(a.personality).toEqual({ value: null, confidence: 1, cues: [] });
    expect(a.next_action).toEqual({ value: 'reply', confidence: 1, cues: [] });
    // The contract fills in 1 where a reading comes without one.
    const { confidence: _, ...bare } = a.next_action;
    expect(AiAnalysis.parse({ ...a, next_action: bare }).next_action.confidence).toBe(1);
  });

  it('AI-01 negation: "I don\'t want to upgrade" is no upsell, "we will never ask for your password" no scam', () => {
    expect(valid('I want to upgrade to the premium plan').sales.value).toBe('upsell');
    expect(valid("I don't want to upgrade, just fix it").sales.value).toBeNull();
    expect(valid('Not interested in the premium plan, thanks.').sales.value).toBeNull();
    expect(valid('Please send us your password to continue').scam.value).toBe('credential_request');
    expect(valid('Remember: we will never ask you to send us your password.').scam.value).toBeNull();
    // A negator in another sentence does not reach.
    expect(valid('No. Send me your PIN now.').scam.value).not.toBeNull();
  });

  it("AI-01 hard negatives: the customer's own password, card and refund are not scams", () => {
    for (const text of [
      'I forgot my password, how do I reset it?',
      "I'd like a refund to my card please",
      'Can I buy a gift card for my nephew?',
      'My account was suspended yesterday, why?',
      'The OTP never arrives when I log in',
      'What are your bank details? We pay by transfer.',
    ])
      expect([text, valid(text).scam.value]).toEqual([text, null]);
    expect(valid('I forgot my password, how do I reset it?').next_action.value).toBe('send_article');
    expect(valid('How much longer will my refund take?').sales.value).toBeNull();
    expect(valid('Since the upgrade the app crashes').sales.value).toBeNull();
  });

  it('AI-01 every reading names its cues: the words matched and what they mean', () => {
    const a = valid('URGENT: our bank details have changed, wire the payment to the new account within 2 hours.');
    expect(a.scam.value).toBe('urgency_pressure');
    expect(a.scam.cues.map((c) => c.cue)).toEqual(expect.arrayContaining(['urgent', 'within 2 hours']));
    for (const c of a.scam.cues) expect(c.means.length).toBeGreaterThan(0);
    expect(a.next_action.value).toBe('escalate');
    expect(a.next_action.cues[0]).toEqual({ cue: 'urgency_pressure', means: 'a possible scam: check before acting' });
    expect(a.scam.confidence).toBeGreaterThan(0.8);
  });

  it('AI-01 next action rules, one of each', () => {
    const cases: [string, string][] = [
      ['I will be contacting my lawyer about this.', 'escalate'],
      ['I am absolutely furious with your service', 'escalate'],
      ['Please change the email address on my account', 'ask_for_id'],
      ['Can someone call me back this afternoon?', 'offer_callback'],
      ["This is the third time I've asked and I'm really frustrated", 'offer_callback'],
      ['How do I export my invoices?', 'send_article'],
      ['My parcel arrived, thanks', 'reply'],
    ];
    for (const [text, action] of cases) expect([text, valid(text).next_action.value]).toEqual([text, action]);
  });

  it('AI-01 the same text always reads the same', () => {
    const text = 'Hi there! Can I order two more seats for our team? Cheers :)';
    expect(analyseMessage(text)).toEqual(analyseMessage(text));
  });
});

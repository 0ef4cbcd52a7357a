import { describe, expect, it } from 'vitest';
import { PLANS } from './constants.js';
import { applyOffer, LIVECHAT_STRINGS, type QueuedChat, queueFor } from './livechat.js';
import { AiHintQuery, TRANSLATE_BOT, wantsAiHint } from './livechatHints.js';
import { concurrentLimit } from './ticketAssignment.js';

describe('live chat rules', () => {
  it.each([
    ['trial', PLANS.trial, 5],
    ['Starter', PLANS.starter, 5],
    ['Basic', PLANS.basic, 10],
    ['Pro', PLANS.pro, 15],
    ['Enterprise', PLANS.enterprise, null],
    ['console (99)', PLANS.console, 0],
    ['an unknown plan', 7, 0],
  ])('LIVECHAT-21 PLAN-20..23 the concurrent-chat limit of %s is %s', (_name, plan, limit) => {
    expect(concurrentLimit(plan)).toBe(limit);
  });

  it('LIVECHAT-22 PLAN-24 the limit message names the number and the way up', () => {
    expect(LIVECHAT_STRINGS.limit(15, 3)).toBe(
      "You have reached your plan's limit of 15 concurrent live chats. Enterprise has no limit: contact sales from the Plans page.",
    );
    expect(LIVECHAT_STRINGS.limit(5, 1)).toBe(
      "You have reached your plan's limit of 5 concurrent live chats. Basic allows 10: upgrade on the Plans page.",
    );
  });

  it('AI-03 hints only for messages not sent by the current agent or the translation bot (text only)', () => {
    const me = 'amy';
    const cases: [{ sender: string; type: string }, boolean][] = [
      [{ sender: 'visitor', type: 'text' }, true],
      [{ sender: 'bob', type: 'text' }, true],
      [{ sender: 'amy', type: 'text' }, false],
      [{ sender: TRANSLATE_BOT, type: 'text' }, false],
      [{ sender: 'server', type: 'system' }, false],
      [{ sender: 'visitor', type: 'image/png' }, false],
    ];
    for (const [m, want] of cases) expect([m, wantsAiHint(m, me)]).toEqual([m, want]);
    // Another agent's own view: amy's message is not theirs.
    expect(wantsAiHint({ sender: 'amy', type: 'text' }, 'bob')).toBe(true);
  });

  it('AI-06 the hint query: text, messageId, channel, translation (optional)', () => {
    expect(AiHintQuery.parse({ text: 'Hi', messageId: '12', channel: 'LIVECHAT' })).toEqual({
      text: 'Hi',
      messageId: 12,
      channel: 'LIVECHAT',
      translation: '',
    });
    expect(AiHintQuery.safeParse({ text: ' ', messageId: '12', channel: 'LIVECHAT' }).success).toBe(false);
    expect(AiHintQuery.safeParse({ text: 'Hi', messageId: 'x', channel: 'LIVECHAT' }).success).toBe(false);
  });

  it('LIVECHAT-03 LIVECHAT-21 the banner counts chats offered to nobody; the prompt is the one offered to me', () => {
    const item = (id: number, offered: number | null): QueuedChat => ({
      id,
      name: `V${id}`,
      message: 'hi',
      department_id: null,
      queued_at: id,
      offered_to: offered === null ? null : `u${offered}`,
      offered_user_id: offered,
      offer_expires_at: offered === null ? null : 1_000,
    });
    const q = { count: 4, queue: [item(1, 7), item(2, 8), item(3, null), item(4, null)] };
    expect(queueFor(q, 7)).toEqual({ open: 2, offer: q.queue[0] });
    expect(queueFor(q, 9)).toEqual({ open: 2, offer: null });
    // Everything offered to others: nothing for Take one, so no banner.
    expect(queueFor({ count: 2, queue: [item(1, 7), item(2, 8)] }, 9)).toEqual({ open: 0, offer: null });
    // More than 50 waiting: the count covers those not listed.
    expect(queueFor({ count: 120, queue: [item(1, 7)] }, 7).open).toBe(119);
  });

  it('LIVECHAT-21 a liveChatOffer marks the chat offered to me in the queue I hold (or adds it)', () => {
    const me = { id: 7, username: 'amy' };
    const waiting: QueuedChat = {
      id: 3,
      name: 'Vera',
      message: 'hi',
      department_id: null,
      queued_at: 1,
      offered_to: null,
      offered_user_id: null,
      offer_expires_at: null,
    };
    const offer = { livechat_id: 3, name: 'Vera', message: 'hi', expires_at: 9_000 };
    const q = applyOffer({ count: 1, queue: [waiting] }, offer, me);
    expect(q).toEqual({
      count: 1,
      queue: [{ ...waiting, offered_to: 'amy', offered_user_id: 7, offer_expires_at: 9_000 }],
    });
    expect(queueFor(q, 7)).toMatchObject({ open: 0, offer: { id: 3 } });
    const empty = applyOffer({ count: 0, queue: [] }, offer, me);
    expect(empty.count).toBe(1);
    expect(queueFor(empty, 7).offer).toMatchObject({ id: 3, name: 'Vera', offer_expires_at: 9_000 });
  });
});

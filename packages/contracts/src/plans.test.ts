import { describe, expect, it } from 'vitest';
import { mailboxLimit } from './email.js';
import { storageLimit } from './messages.js';
import { mayUseChannel, planEntitlements, planLimitWords, upgradePath, yourPlan } from './plans.js';
import { slaAlertQuota } from './sla.js';
import { concurrentLimit } from './ticketAssignment.js';

const GB = 1024 ** 3;

describe('PLAN the one plan table', () => {
  it.each([
    // plan, SLA alerts a month, mailboxes, concurrent chats, storage
    [0, 100, 5, 5, GB],
    [1, 100, 5, 5, GB],
    [2, 300, 10, 10, 3 * GB],
    [3, 500, 15, 15, 5 * GB],
    [4, null, null, null, null],
    [99, 0, 5, 0, GB],
    [7, 0, 5, 0, GB],
  ])('PLAN-20 PLAN-21 PLAN-22 PLAN-23 plan %i: %s alerts, %s mailboxes, %s chats, %s bytes', (plan, sla, boxes, chats, bytes) => {
    expect(planEntitlements(plan)).toMatchObject({
      slaAlertsPerMonth: sla,
      mailboxes: boxes,
      concurrentChats: chats,
      storageBytes: bytes,
    });
    // Every module's own reading is the table's.
    expect([slaAlertQuota(plan), mailboxLimit(plan), concurrentLimit(plan), storageLimit(plan)]).toEqual([
      sla,
      boxes,
      chats,
      bytes,
    ]);
  });

  it('PLAN-19 PLAN-20 PLAN-21 PLAN-22 channels by plan; e-mail, live chat and calls on every plan', () => {
    expect(mayUseChannel(1, 'WHATSAPP')).toBe(true);
    expect(mayUseChannel(1, 'FB_PM')).toBe(true);
    expect(mayUseChannel(1, 'IG_PM')).toBe(false);
    expect(mayUseChannel(1, 'LINE_DM')).toBe(false);
    expect(mayUseChannel(2, 'IG_PM')).toBe(true);
    expect(mayUseChannel(2, 'TELEGRAM')).toBe(false);
    expect(mayUseChannel(3, 'TELEGRAM')).toBe(true);
    expect(mayUseChannel(4, 'SMS')).toBe(true);
    expect(mayUseChannel(0, 'IG_POST')).toBe(false);
    for (const plan of [0, 1, 99])
      for (const c of ['EMAIL', 'LIVECHAT', 'CALL'] as const) expect(mayUseChannel(plan, c)).toBe(true);
    expect(mayUseChannel(99, 'WHATSAPP')).toBe(false);
  });

  it('PLAN-24 a refusal names the plan and the next plan that allows more', () => {
    expect(yourPlan(0)).toBe('Your trial');
    expect(yourPlan(2)).toBe('Your Basic plan');
    expect(upgradePath(0, 'mailboxes')).toBe('Basic allows 10: upgrade on the Plans page.');
    expect(upgradePath(2, 'storageBytes')).toBe('Pro allows 5 GB: upgrade on the Plans page.');
    expect(upgradePath(3, 'concurrentChats')).toBe('Enterprise has no limit: contact sales from the Plans page.');
    expect(upgradePath(4, 'mailboxes')).toBe('');
    expect(upgradePath(99, 'mailboxes')).toBe('');
    expect(planLimitWords('mailboxes', 2, 10)).toBe(
      'Your Basic plan allows 10 e-mail mailboxes. Pro allows 15: upgrade on the Plans page.',
    );
    expect(planLimitWords('mailboxes', 99, 5)).toBe('Your plan allows 5 e-mail mailboxes.');
  });
});

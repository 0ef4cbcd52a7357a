import { describe, expect, it } from 'vitest';
import { DONE_TICKET_STATUSES, isDone, isTrialAccount, PLANS, TICKET_STATUS } from './constants.js';

describe('named codes', () => {
  it('TICKET-22 TICKET-23 done means Resolved (2) or Closed (3); open, pending, "all" and custom codes are not', () => {
    expect([0, 1, 2, 3, 4, 5, 12].filter(isDone)).toEqual([2, 3]);
    expect(DONE_TICKET_STATUSES).toEqual([TICKET_STATUS.resolved, TICKET_STATUS.closed]);
  });

  it('PLAN-03 PLAN-10 a trial account is account_type 0; plan 99 is the console plan', () => {
    expect([0, 1, 2, undefined].map(isTrialAccount)).toEqual([true, false, false, false]);
    expect(PLANS.console).toBe(99);
    expect(PLANS.trial).toBe(0);
  });
});

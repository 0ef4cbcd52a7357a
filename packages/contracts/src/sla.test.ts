import { describe, expect, it } from 'vitest';
import { PLANS } from './constants.js';
import { SLA_WARNING_SHARE, slaAlertQuota, slaMonth } from './sla.js';

describe('SLA alerts per plan', () => {
  it('PLAN-03 PLAN-08 PLAN-19 PLAN-20 PLAN-21 PLAN-22 PLAN-23 the monthly quota of every plan', () => {
    expect(slaAlertQuota(PLANS.trial)).toBe(100); // design: a trial gets Starter's quota
    expect(slaAlertQuota(PLANS.starter)).toBe(100);
    expect(slaAlertQuota(PLANS.basic)).toBe(300);
    expect(slaAlertQuota(PLANS.pro)).toBe(500);
    expect(slaAlertQuota(PLANS.enterprise)).toBeNull(); // unlimited
    expect(slaAlertQuota(PLANS.console)).toBe(0); // plan 99 has no conversations, so no alerts
    expect([PLANS.trial, PLANS.starter, PLANS.basic, PLANS.pro, PLANS.enterprise, PLANS.console]).toEqual([
      0, 1, 2, 3, 4, 99,
    ]);
  });

  it('PLAN-19 an unknown plan number gets no alerts', () => {
    for (const plan of [5, -1, 98, 100, 1.5, Number.NaN]) expect(slaAlertQuota(plan), String(plan)).toBe(0);
  });

  it('PLAN-19 alerts count in the calendar month in UTC; the warning goes at 80 %', () => {
    expect(slaMonth(Date.UTC(2030, 0, 31, 23, 59, 59, 999))).toBe('2030-01');
    expect(slaMonth(Date.UTC(2030, 1, 1, 0, 0, 0))).toBe('2030-02');
    expect(SLA_WARNING_SHARE).toBe(0.8);
  });
});

import { planEntitlements } from './plans.js';

/**
 * SLA alerts (LABEL-03, PLAN-19..23). A label's `sla` is the minutes a ticket carrying it may wait
 * for a reply; 0 means no SLA. With several labels the smallest non-zero one applies.
 */

/** A warning goes out at this share of the SLA time. */
export const SLA_WARNING_SHARE = 0.8;

/**
 * PLAN-20..23: SLA alerts per calendar month (UTC). Starter 100, Basic 300, Pro 500, Enterprise unlimited
 * (null). Design: a trial gets Starter's 100; the console plan (99) and unknown plans get 0 (no conversations).
 * One alert is one warning or one violation of one ticket, whatever the number of people told.
 */
export const slaAlertQuota = (plan: number): number | null => planEntitlements(plan).slaAlertsPerMonth;

/** `2026-05`: the month an alert counts in. */
export const slaMonth = (ms: number) => new Date(ms).toISOString().slice(0, 7);

const minutes = (n: number) => `${n} minute${n === 1 ? '' : 's'}`;

/** The texts of SLA and system notifications. */
export const SLA_STRINGS = {
  warningTitle: (ticketNumber: number) => `SLA warning: #${ticketNumber}`,
  warningBody: (title: string, waited: number, sla: number) =>
    `"${title}" has waited ${minutes(waited)} of its ${minutes(sla)} for a reply.`,
  violationTitle: (ticketNumber: number) => `SLA violated: #${ticketNumber}`,
  violationBody: (title: string, sla: number) => `"${title}" has waited more than ${minutes(sla)} for a reply.`,
  quotaTitle: 'SLA alerts paused',
  quotaBody: (quota: number) =>
    `This month's ${quota} SLA alerts are used up; no more SLA alerts are sent until next month. Upgrade the plan for more.`,
  assignedTitle: (ticketNumber: number) => `Assigned to you: #${ticketNumber}`,
  assignedBody: (by: string, title: string) => `${by} assigned "${title}" to you.`,
  mentionedTitle: (ticketNumber: number) => `You were mentioned: #${ticketNumber}`,
  transferredTitle: (ticketNumber: number) => `Chat transferred to you: #${ticketNumber}`,
} as const;

import { ErrorCode, PLANS, type PlanLimitKey, planEntitlements, planLimitWords } from '@parley/contracts';
import { lockAccount } from '../../platform/db/locks.js';
import { AppError } from '../../platform/http/errors.js';
import type { Trx } from '../../platform/outbox/index.js';

/** How a refusal answers, per limit: as each call already answered it (a full storage is a body too large). */
const REFUSAL: Record<Exclude<PlanLimitKey, 'slaAlertsPerMonth'>, { status: number; code: string }> = {
  mailboxes: { status: 403, code: ErrorCode.forbidden },
  concurrentChats: { status: 409, code: ErrorCode.conflict },
  storageBytes: { status: 413, code: ErrorCode.tooLarge },
};

/**
 * PLAN-19..PLAN-24: the one place that answers "may this account add `adding` more of X". It locks the
 * account's row for the caller's transaction (two creations cannot both take the plan's last place), reads
 * the plan's limit from the plan table, asks the caller how much is used now, and refuses with the words of
 * that limit, the plan's name and the way up; else answers the limit and what was used (null: no limit). SLA alerts are not refused but stop being sent (sla/alerts).
 */
export async function requireWithinPlan(
  trx: Trx,
  accountId: number,
  key: keyof typeof REFUSAL,
  used: () => Promise<number>,
  adding = 1,
): Promise<{ limit: number | null; used: number }> {
  const plan = (await lockAccount(trx, accountId))?.plan ?? PLANS.trial;
  const limit = planEntitlements(plan)[key];
  if (limit === null) return { limit, used: 0 };
  const now = await used();
  if (now + adding <= limit) return { limit, used: now };
  const { status, code } = REFUSAL[key];
  throw new AppError(status, code, planLimitWords(key, plan, limit));
}

/** A product function a plan includes or not (PLAN-21: Basic and up). */
export type PlanFeature = 'surveys' | 'convertToTicket' | 'chatTranscript';

/**
 * PLAN-16, PLAN-21: the one place that answers "does this account's plan include this function": it reads
 * the plan (locking the account's row for the caller's transaction, like the limits) and refuses with 403
 * and `words` (the function, the plan that has it, the way up) when it does not.
 */
export async function requirePlanFeature(trx: Trx, accountId: number, feature: PlanFeature, words: string) {
  const plan = (await lockAccount(trx, accountId))?.plan ?? PLANS.trial;
  if (!planEntitlements(plan)[feature]) throw new AppError(403, ErrorCode.forbidden, words);
}

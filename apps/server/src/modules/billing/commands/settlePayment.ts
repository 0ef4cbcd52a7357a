import { ACCOUNT_TYPES, isTrialAccount } from '@parley/contracts';
import type { DB } from '../../../platform/db/db.js';
import { runCommand } from '../../../platform/outbox/index.js';
import { recordAudit } from '../../audit/index.js';

/** How long one paid period runs (subscriptions are per user per month, PLAN-01). */
export const PERIOD_MS = 30 * 24 * 3600 * 1000;

/**
 * PAY-22: a pending payment becomes SUCCESS or FAILED, once. SUCCESS activates its plan on the account
 * (plan, seats = quantity, a trial becomes a paid account, the subscription runs PERIOD_MS from now).
 * A payment no longer pending is left as it is and `settled` is false: a replayed outcome or webhook
 * changes nothing. `accountId` narrows it to one account (the sandbox page); a webhook passes none.
 */
export async function settlePayment(
  db: DB,
  p: { ref: string; accountId?: number; outcome: 'SUCCESS' | 'FAILED'; desc: string; actor: string; ip?: string },
  now = Date.now(),
): Promise<{ settled: boolean; accountId: number | null }> {
  return runCommand(db, async (trx) => {
    let q = trx.selectFrom('payments').selectAll().where('ref', '=', p.ref);
    if (p.accountId !== undefined) q = q.where('account_id', '=', p.accountId);
    const pay = await q.executeTakeFirst();
    if (!pay) return { settled: false, accountId: null };
    const accountId = Number(pay.account_id);
    // The status check is in the update itself: of two deliveries racing, one changes the row.
    const r = await trx
      .updateTable('payments')
      .set({ status: p.outcome, payment_desc: p.desc, settled_at: now })
      .where('id', '=', pay.id)
      .where('status', '=', 'PENDING')
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) === 0) return { settled: false, accountId };
    if (p.outcome === 'SUCCESS') {
      const a = await trx.selectFrom('accounts').select('account_type').where('id', '=', accountId).executeTakeFirst();
      await trx
        .updateTable('accounts')
        .set({
          plan: Number(pay.plan),
          seats: Number(pay.quantity),
          account_type: isTrialAccount(Number(a?.account_type)) ? ACCOUNT_TYPES.regular : Number(a?.account_type),
          subscription_ends_at: now + PERIOD_MS,
          // A new subscription renews: a cancellation of the one before it is done with.
          subscription_cancel_at: null,
          updated_at: now,
        })
        .where('id', '=', accountId)
        .execute();
    }
    await recordAudit(trx, {
      accountId,
      userId: pay.user_id === null ? null : Number(pay.user_id),
      actor: p.actor,
      action: p.outcome === 'SUCCESS' ? 'payment.succeeded' : 'payment.failed',
      detail: {
        ref: p.ref,
        plan: Number(pay.plan),
        quantity: Number(pay.quantity),
        currency: pay.currency,
        total: pay.total,
        desc: p.desc,
      },
      ip: p.ip,
    });
    return { settled: true, accountId };
  });
}

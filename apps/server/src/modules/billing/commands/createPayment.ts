import { randomBytes } from 'node:crypto';
import { PAY_ERRORS, PAY_STRINGS, PLANS, PURCHASABLE_PLANS, parseQuantity, paymentTotal } from '@parley/contracts';
import type { DB } from '../../../platform/db/db.js';
import { AppError, badRequest, notFound } from '../../../platform/http/errors.js';
import { runCommand } from '../../../platform/outbox/index.js';
import { recordAudit } from '../../audit/index.js';
import { priceList } from '../pricing.js';
import type { PaymentProvider } from '../providers.js';

/** A plan number as the body carries it: digits only, as text or a JSON whole number. */
function parsePlan(v: unknown): number | null {
  const s = typeof v === 'number' && Number.isSafeInteger(v) ? String(v) : typeof v === 'string' ? v.trim() : '';
  return /^\d{1,3}$/.test(s) ? Number(s) : null;
}

/**
 * PAY-25: an admin starts a payment for `quantity` users. `plan` is given only while the account has none
 * (trial, PLAN-03); a subscribed account pays for its own plan. The price and tax are the caller's
 * country's (PAY-23), fixed on the payment row with the total, so what is charged is what was shown. Bad
 * input is refused before anything is written; with no provider the answer is PAY-29's "Billing information
 * could not be found.".
 */
export async function createPayment(
  db: DB,
  provider: PaymentProvider | null,
  who: { accountId: number; userId: number; ip: string; actor: string },
  input: { plan?: unknown; quantity: unknown },
  country: string | null,
): Promise<{ ref: string; url: string }> {
  const quantity = parseQuantity(input.quantity);
  if (quantity === null) throw badRequest(PAY_ERRORS.quantity);
  const account = await db
    .selectFrom('accounts')
    .select(['plan', 'account_type'])
    .where('id', '=', who.accountId)
    .executeTakeFirst();
  if (!account) throw notFound();
  const current = Number(account.plan);
  const subscribed = current >= PLANS.starter && current <= PLANS.enterprise;
  let plan: number;
  if (input.plan !== undefined && input.plan !== null && input.plan !== '') {
    const p = parsePlan(input.plan);
    if (p === PLANS.enterprise) throw badRequest(PAY_ERRORS.enterprise);
    if (p === null || !(PURCHASABLE_PLANS as readonly number[]).includes(p)) throw badRequest(PAY_ERRORS.plan);
    if (subscribed) throw badRequest(PAY_ERRORS.subscribed);
    plan = p;
  } else {
    if (!subscribed) throw badRequest(PAY_ERRORS.noPlan);
    if (current === PLANS.enterprise) throw badRequest(PAY_ERRORS.enterprise);
    plan = current;
  }
  const prices = await priceList(db, country);
  const row = prices.data.find((r) => r.plan === plan);
  if (!row) throw badRequest(PAY_ERRORS.noPrice);
  if (!provider) throw badRequest(PAY_STRINGS.billingMissing);

  const ref = randomBytes(16).toString('base64url');
  const total = paymentTotal(quantity, row.price, row.tax);
  await runCommand(db, async (trx) => {
    await trx
      .insertInto('payments')
      .values({
        account_id: who.accountId,
        user_id: who.userId,
        ref,
        provider: provider.name,
        plan,
        quantity,
        country: prices.country,
        currency: row.currency,
        price: row.price,
        tax: row.tax,
        total,
        created_at: Date.now(),
        settled_at: null,
      })
      .execute();
    await recordAudit(trx, {
      accountId: who.accountId,
      userId: who.userId,
      actor: who.actor,
      action: 'payment.created',
      detail: { ref, provider: provider.name, plan, quantity, currency: row.currency, total },
      ip: who.ip,
    });
  });
  try {
    const started = await provider.start({
      ref,
      accountId: who.accountId,
      plan,
      quantity,
      currency: row.currency,
      price: row.price,
      tax: row.tax,
      total,
    });
    if (started.providerRef)
      await db.updateTable('payments').set({ provider_ref: started.providerRef }).where('ref', '=', ref).execute();
    return { ref, url: started.url };
  } catch (err) {
    // The provider could not start it: the payment is failed, not left pending.
    const desc = err instanceof Error ? err.message : 'The payment provider could not be reached.';
    await runCommand(db, async (trx) => {
      await trx
        .updateTable('payments')
        .set({ status: 'FAILED', payment_desc: desc, settled_at: Date.now() })
        .where('ref', '=', ref)
        .where('status', '=', 'PENDING')
        .execute();
      await recordAudit(trx, {
        accountId: who.accountId,
        userId: who.userId,
        actor: who.actor,
        action: 'payment.failed',
        detail: { ref, provider: provider.name, plan, quantity, currency: row.currency, total, desc },
        ip: who.ip,
      });
    });
    throw new AppError(502, 'PAYMENT_PROVIDER', desc);
  }
}

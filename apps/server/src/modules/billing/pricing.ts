import { PRICE_PATTERN, type PriceRow, PURCHASABLE_PLANS, TAX_PATTERN } from '@parley/contracts';
import type { DB } from '../../platform/db/db.js';

/** The country of the default price rows, used where a country has none of its own. */
export const DEFAULT_COUNTRY = '*';

/**
 * PAY-21, PAY-23: the price rows of a country (its own rows when it has any, else the default rows), by plan.
 * Pricing is the installation's, not an account's: every account in a country sees the same prices.
 */
export async function priceList(db: DB, country: string | null): Promise<{ country: string; data: PriceRow[] }> {
  const code = country?.toUpperCase() ?? DEFAULT_COUNTRY;
  const read = (c: string) =>
    db
      .selectFrom('pricing')
      .select(['plan', 'currency', 'price', 'tax'])
      .where('country', '=', c)
      .orderBy('plan')
      .execute();
  let rows = code === DEFAULT_COUNTRY ? [] : await read(code);
  let used = code;
  if (rows.length === 0) {
    rows = await read(DEFAULT_COUNTRY);
    used = DEFAULT_COUNTRY;
  }
  return { country: used, data: rows.map((r) => ({ ...r, plan: Number(r.plan) })) };
}

/** Why a price row cannot be stored, or null when it can. */
export function priceRowProblem(r: { country: string; plan: number; currency: string; price: string; tax: string }) {
  if (r.country !== DEFAULT_COUNTRY && !/^[A-Z]{2}$/.test(r.country))
    return 'country must be a two-letter code (e.g. MY) or * for the default';
  if (!(PURCHASABLE_PLANS as readonly number[]).includes(r.plan))
    return 'plan must be 1 (Starter), 2 (Basic) or 3 (Pro)';
  if (!/^[A-Z]{3}$/.test(r.currency)) return 'currency must be a three-letter code (e.g. USD)';
  if (!PRICE_PATTERN.test(r.price)) return 'price must be a decimal with at most 2 decimals (e.g. 20.00)';
  if (!TAX_PATTERN.test(r.tax)) return 'tax must be a fraction below 1 with at most 4 decimals (e.g. 0.06 for 6%)';
  return null;
}

/** The operator sets (adds or replaces) one price row; `pricing:set` in the CLI. */
export async function setPrice(
  db: DB,
  r: { country: string; plan: number; currency: string; price: string; tax: string },
): Promise<void> {
  const problem = priceRowProblem(r);
  if (problem) throw new Error(problem);
  const now = Date.now();
  await db
    .insertInto('pricing')
    .values({ ...r, updated_at: now })
    .onConflict((oc) =>
      oc
        .columns(['country', 'plan'])
        .doUpdateSet({ currency: r.currency, price: r.price, tax: r.tax, updated_at: now }),
    )
    .execute();
}

/** The operator removes a country's row of a plan (the default rows stay: there must be a price to fall back to). */
export async function removePrice(db: DB, country: string, plan: number): Promise<boolean> {
  if (country === DEFAULT_COUNTRY) throw new Error('the default rows (*) can be changed but not removed');
  const r = await db.deleteFrom('pricing').where('country', '=', country).where('plan', '=', plan).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

export async function allPrices(db: DB) {
  return db.selectFrom('pricing').selectAll().orderBy('country').orderBy('plan').execute();
}

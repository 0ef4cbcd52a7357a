/** PLAN, PAY: plans, pricing and payment (docs/billing.md). */

export { type BillingDeps, billingRoutes, SANDBOX_DECLINED, SANDBOX_PAID } from './billing.routes.js';
/** The Stripe adapter: Checkout sessions, verified webhooks. */
export { applyStripeEvent } from './commands/applyStripeEvent.js';
/** PAY-25: an admin starts a payment. */
export { createPayment } from './commands/createPayment.js';
/** PAY-22: the one place a payment is settled and its plan activated. */
export { PERIOD_MS, settlePayment } from './commands/settlePayment.js';
export { countryOf } from './geo.js';
export { allPrices, DEFAULT_COUNTRY, priceList, priceRowProblem, removePrice, setPrice } from './pricing.js';
export { type PaymentProvider, sandboxProvider } from './providers.js';
export { cents, type StripeProvider, stripeProvider } from './stripe.js';

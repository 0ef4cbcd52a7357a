/** What a provider is told when a payment starts. Amounts are decimal text; nothing here is a float. */
export interface CheckoutRequest {
  ref: string;
  accountId: number;
  plan: number;
  quantity: number;
  currency: string;
  /** Per user per month, before tax. */
  price: string;
  tax: string;
  total: string;
}

/**
 * PAY-31: a payment provider. It starts a payment and answers the page the popup opens; the outcome comes
 * back later (the sandbox page's buttons, a provider's webhook) through `settlePayment`, the one place that
 * changes a payment's status and activates a plan.
 */
export interface PaymentProvider {
  readonly name: string;
  start(p: CheckoutRequest): Promise<{ url: string; providerRef: string }>;
  /**
   * A running subscription's number of users changes; the provider prorates the difference (Stripe: on the
   * next invoice). `taxCents` is the new monthly tax line (0: none). Absent: nothing to tell the provider.
   */
  changeSeats?(subscription: string, c: { quantity: number; currency: string; taxCents: number }): Promise<void>;
  /** The subscription ends at the end of its period and is not renewed (`cancel`), or renews again. */
  setCancelAtPeriodEnd?(subscription: string, cancel: boolean): Promise<{ cancelAt: number | null }>;
}

/** PAY-26: the popup address of a sandbox payment. */
export const sandboxPageOf = (ref: string) => `/api/payment/sandbox/${encodeURIComponent(ref)}`;

/**
 * The built-in sandbox: the popup is a page Parley serves itself, whose buttons pay or decline (for
 * self-hosters trying the flow, and for tests). No money moves.
 */
export const sandboxProvider: PaymentProvider = {
  name: 'sandbox',
  async start(p) {
    return { url: sandboxPageOf(p.ref), providerRef: '' };
  },
};

import { z } from 'zod';
import { PLANS } from './constants.js';

/** PAY: user-visible strings, copied from the spec as written, typos included. */
export const PAY_STRINGS = {
  /** PAY-28: a payment that could not be created; the server's description follows. */
  createFailed: 'Payment failed.',
  /** PAY-30: the status call failed; the response data follows. */
  statusFailed: 'Payment failed',
  /** PAY-29: the description that brings the Add Now button. */
  billingMissing: 'Billing information could not be found.',
  addNow: 'Add Now',
  continue: 'Continue',
  /** PAY-19 */
  empty: 'This cannot be empty.',
  /** PAY-04 */
  taxLabel: 'Sales and Service Tax',
  /** PAY-10 (design): the in-progress text around the spec's "do not close". */
  inProgress: 'Payment in progress, do not close this window.',
  /** PAY-16 (design) */
  success: 'Your plan is now active.',
} as const;

/** Server answers of `POST /api/payment/create` and the sandbox page (design, the spec is silent). */
export const PAY_ERRORS = {
  quantity: 'Number of users must be a whole number from 1 to 10000.',
  plan: 'Choose Starter, Basic or Pro.',
  enterprise: 'Enterprise is pay as you go: please contact sales.',
  subscribed: 'This account already has a plan; pay without choosing one.',
  noPlan: 'Choose a plan.',
  noPrice: 'There is no price for this plan in your country.',
  settled: 'This payment is already complete.',
  /** Stripe's webhook with a missing or wrong signature. */
  badSignature: 'The signature is not valid.',
} as const;

/** PLAN-07: plan numbers to names. */
export const PLAN_NAMES: Record<number, string> = {
  [PLANS.trial]: 'Trial',
  [PLANS.starter]: 'Starter',
  [PLANS.basic]: 'Basic',
  [PLANS.pro]: 'Pro',
  [PLANS.enterprise]: 'Enterprise',
  [PLANS.console]: 'Console',
};

/** The plans that can be bought on line (Enterprise is contact sales, PLAN-02). */
export const PURCHASABLE_PLANS = [PLANS.starter, PLANS.basic, PLANS.pro] as const;
export const MAX_SEATS = 10000;

export const PAYMENT_STATUSES = ['PENDING', 'FAILED', 'SUCCESS'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];
/**
 * Rows of the payment history beside payments: CHANGED, the number of users of a running subscription
 * changed (the difference is prorated by the provider on the next invoice); REFUNDED, money given back.
 */
export const HISTORY_STATUSES = [...PAYMENT_STATUSES, 'CHANGED', 'REFUNDED'] as const;
export type HistoryStatus = (typeof HISTORY_STATUSES)[number];

/** Design: the words of a running subscription's changes (seats, cancellation) and refunds. */
export const SUBSCRIPTION_STRINGS = {
  title: 'Your subscription',
  none: 'There is no running subscription to change.',
  ended: 'The subscription has ended: Pay Now to start a new one.',
  sameSeats: (n: number) => `The subscription is already for ${n} ${n === 1 ? 'user' : 'users'}.`,
  tooFewSeats: (users: number) =>
    `The account has ${users} ${users === 1 ? 'user' : 'users'}: remove users before paying for fewer.`,
  cancelled: 'The subscription is cancelled: keep it first to change it.',
  notCancelled: 'The subscription is not cancelled.',
  alreadyCancelled: 'The subscription is already cancelled.',
  seatsChanged: (from: number, to: number) =>
    `Users changed from ${from} to ${to}; the difference is prorated on the next invoice.`,
  refunded: 'Refunded.',
  changeSeats: 'Change users',
  cancel: 'Cancel subscription',
  cancelConfirm: 'Cancel the subscription? It stays active until the end of the paid period and is not renewed.',
  keep: 'Keep subscription',
  renews: (date: string) => `Renews on ${date}.`,
  endsOn: (date: string) => `Cancelled: ends on ${date} and is not renewed.`,
  newTotal: 'New monthly total',
  save: 'Save',
} as const;

/** A price: a decimal string with at most 2 decimals (money is never a float). */
export const PRICE_PATTERN = /^(0|[1-9]\d{0,8})(\.\d{1,2})?$/;
/** A tax: a fraction as a decimal string with at most 4 decimals, below 1 (0.06 is 6%). */
export const TAX_PATTERN = /^0(\.\d{1,4})?$/;

/** PAY-21, PAY-23: one price row for the caller's country. */
export const PriceRow = z.object({
  plan: z.number().int(),
  currency: z.string(),
  /** Per user per month, e.g. "20.00". */
  price: z.string(),
  /** A fraction, e.g. "0.06". */
  tax: z.string(),
});
export type PriceRow = z.infer<typeof PriceRow>;
export const PricingQuery = z.object({
  country: z
    .string()
    .regex(/^[A-Za-z]{2}$/, 'country is a two-letter code.')
    .optional(),
});
export const PricingAnswer = z.object({
  result: z.literal('success'),
  /** The country the prices are for ('*' is the default row). */
  country: z.string(),
  data: z.array(PriceRow),
});
export type PricingAnswer = z.infer<typeof PricingAnswer>;

/** Digits only, as text or a JSON whole number; range checked by the server with PAY_ERRORS.quantity. */
const quantity = z.union([z.string().max(100), z.number()]);
export const PaymentCreateInput = z.object({
  _token: z.string().max(500).optional(),
  plan: z.union([z.string().max(100), z.number()]).optional(),
  quantity,
});
export type PaymentCreateInput = z.infer<typeof PaymentCreateInput>;
export const PaymentCreateAnswer = z.object({
  result: z.literal('success'),
  payment_ref: z.string(),
  /** PAY-26: the page the payment popup opens. */
  url: z.string(),
});
export type PaymentCreateAnswer = z.infer<typeof PaymentCreateAnswer>;
export const PaymentStatusQuery = z.object({
  _token: z.string().max(500).optional(),
  ref: z.string().min(1, 'ref is required.').max(64),
});
export const PaymentStatusAnswer = z.object({
  result: z.literal('success'),
  status: z.enum(PAYMENT_STATUSES),
  payment_desc: z.string(),
});
export type PaymentStatusAnswer = z.infer<typeof PaymentStatusAnswer>;

/** Design: one page of the account's payments, newest first (billing settings, section 17). */
export const PAYMENT_HISTORY_PAGE = 20;
export const PaymentHistoryQuery = z.object({
  _token: z.string().max(500).optional(),
  /** 0-based. */
  page: z
    .string()
    .regex(/^\d{1,6}$/, 'page is a whole number from 0.')
    .optional()
    .transform((v) => (v === undefined ? 0 : Number(v))),
});
/** One payment as the account's admins see it: what was bought, for how much, and how it ended. */
export const PaymentHistoryItem = z.object({
  ref: z.string(),
  plan: z.number().int(),
  quantity: z.number().int(),
  currency: z.string(),
  /** Per user per month, decimal text. */
  price: z.string(),
  /** A fraction as decimal text ("0.06"). */
  tax: z.string(),
  total: z.string(),
  status: z.enum(HISTORY_STATUSES),
  payment_desc: z.string(),
  provider: z.string(),
  /** Who started it (their display name), '' when the user is gone. */
  by: z.string(),
  created_at: z.number(),
  settled_at: z.number().nullable(),
});
export type PaymentHistoryItem = z.infer<typeof PaymentHistoryItem>;
export const PaymentHistoryAnswer = z.object({
  result: z.literal('success'),
  data: z.array(PaymentHistoryItem),
  total: z.number().int(),
});
export type PaymentHistoryAnswer = z.infer<typeof PaymentHistoryAnswer>;

/** Parses a quantity of users: digits only, 1 to MAX_SEATS; null when it is not one. */
export function parseQuantity(v: unknown): number | null {
  const s = typeof v === 'number' ? (Number.isSafeInteger(v) ? String(v) : '') : typeof v === 'string' ? v : '';
  if (!/^\d{1,6}$/.test(s)) return null;
  const n = Number(s);
  return n >= 1 && n <= MAX_SEATS ? n : null;
}

/** A decimal string as an integer count of 10^-scale units ("1.5", 2 -> 150n). */
function units(v: string, scale: number): bigint {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(v.trim());
  if (!m) throw new Error(`not a decimal: ${v}`);
  const frac = (m[2] ?? '').padEnd(scale, '0');
  if (frac.length > scale) throw new Error(`too many decimals: ${v}`);
  return BigInt(m[1]!) * 10n ** BigInt(scale) + BigInt(frac || '0');
}

const fixed = (u: bigint, scale: number) => {
  const s = u.toString().padStart(scale + 1, '0');
  return scale ? `${s.slice(0, -scale)}.${s.slice(-scale)}` : s;
};

/**
 * PAY-20: total = quantity x price x (1 + tax), rounded half up to 2 decimals, in exact decimal arithmetic
 * (price in cents, tax in 1/10000), never floats.
 */
export function paymentTotal(quantity: number, price: string, tax: string): string {
  const cents = BigInt(quantity) * units(price, 2);
  const scaled = cents * (10000n + units(tax, 4));
  return fixed((scaled + 5000n) / 10000n, 2);
}

/** PAY-04: a tax fraction as a percent without trailing zeros ("0.06" -> "6", "0.065" -> "6.5"). */
export function taxPercent(tax: string): string {
  const s = fixed(units(tax, 4), 2);
  return s.replace(/\.?0+$/, '') || '0';
}

/** `GET /api/payment/subscription`: the account's running subscription, or null. */
export const SubscriptionInfo = z.object({
  plan: z.number().int(),
  seats: z.number().int(),
  provider: z.string(),
  currency: z.string(),
  /** Per user per month and the tax fraction the subscription runs at (those of the payment that started it). */
  price: z.string(),
  tax: z.string(),
  /** The monthly total for `seats`. */
  total: z.string(),
  /** When the paid period ends (it renews then, unless cancelled). */
  ends_at: z.number().nullable(),
  /** Set when the admin cancelled: it ends then and is not renewed. */
  cancel_at: z.number().nullable(),
});
export type SubscriptionInfo = z.infer<typeof SubscriptionInfo>;
export const SubscriptionAnswer = z.object({ result: z.literal('success'), data: SubscriptionInfo.nullable() });
export type SubscriptionAnswer = z.infer<typeof SubscriptionAnswer>;
/** `POST /api/payment/seats`: the new number of users (digits only, as PaymentCreateInput's). */
export const SeatsInput = z.object({ _token: z.string().max(500).optional(), quantity });
/** `POST /api/payment/cancel` and `/api/payment/resume`. */
export const SubscriptionActionInput = z.object({ _token: z.string().max(500).optional() });

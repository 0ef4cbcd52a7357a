import type {
  PaymentCreateAnswer,
  PaymentHistoryAnswer,
  PaymentStatusAnswer,
  PricingAnswer,
  SubscriptionAnswer,
} from '@parley/contracts';
import { api } from '../../lib/http';

export const billingApi = {
  /** PAY-23: the prices of the caller's country (the server finds it from the address). */
  pricing: () => api<PricingAnswer>('GET', '/api/pricing'),
  /** PAY-25: `plan` only while the account has none. */
  create: (quantity: string, plan?: number) =>
    api<PaymentCreateAnswer>('POST', '/api/payment/create', plan === undefined ? { quantity } : { plan, quantity }),
  /** PAY-27 */
  status: (ref: string) => api<PaymentStatusAnswer>('GET', `/api/payment/status?ref=${encodeURIComponent(ref)}`),
  /** The account's payments, newest first; `page` is 0-based on the wire. */
  history: (page: number) => api<PaymentHistoryAnswer>('GET', `/api/payment/history?page=${page}`),
  /** The running subscription, or null. */
  subscription: () => api<SubscriptionAnswer>('GET', '/api/payment/subscription'),
  seats: (quantity: string) => api<SubscriptionAnswer>('POST', '/api/payment/seats', { quantity }),
  cancel: () => api<SubscriptionAnswer>('POST', '/api/payment/cancel', {}),
  resume: () => api<SubscriptionAnswer>('POST', '/api/payment/resume', {}),
};

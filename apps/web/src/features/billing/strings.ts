import { PLANS } from '@parley/contracts';

/** PLAN-04, PLAN-20..PLAN-23: what each plan card shows (the spec's plan limits table). */
export const PLAN_CARDS = [
  {
    plan: PLANS.starter,
    name: 'Starter',
    limits: ['100 SLA alerts per month', '5 e-mail accounts', '5 concurrent chats', '1GB storage'],
    channels: 'Facebook and Twitter, WhatsApp, Messenger',
  },
  {
    plan: PLANS.basic,
    name: 'Basic',
    limits: ['300 SLA alerts per month', '10 e-mail accounts', '10 concurrent chats', '3GB storage'],
    channels: 'Starter plus Instagram and Line; chat transcript, survey, conversion to ticket',
  },
  {
    plan: PLANS.pro,
    name: 'Pro',
    limits: ['500 SLA alerts per month', '15 e-mail accounts', '15 concurrent chats', '5GB storage'],
    channels: 'Basic plus Telegram',
  },
  {
    plan: PLANS.enterprise,
    name: 'Enterprise',
    limits: ['Unlimited SLA alerts', 'Unlimited e-mail accounts', 'Unlimited concurrent chats', 'Unlimited storage'],
    channels: 'pay as you go; contact sales',
  },
] as const;

export const PLAN_SCREEN = {
  title: 'Plans',
  intro: 'Subscriptions are per user per month.',
  current: 'Current plan',
  purchase: 'Purchase',
  contact: 'Contact Sales',
  perUser: 'per user per month',
  adminsOnly: 'Only an admin can buy a plan.',
  payNow: 'Pay Now',
} as const;

/** Design: the account's payments and their receipts under the plans (billing, section 17). */
export const PAYMENT_HISTORY = {
  title: 'Payment history',
  none: 'No payments yet.',
  when: 'Date',
  plan: 'Plan',
  users: 'Users',
  total: 'Total',
  status: 'Status',
  by: 'By',
  receipt: 'Receipt',
  statuses: {
    SUCCESS: 'Paid',
    FAILED: 'Failed',
    PENDING: 'Not completed',
    CHANGED: 'Users changed',
    REFUNDED: 'Refunded',
  },
  receiptTitle: 'Receipt',
  number: 'Payment reference',
  paidOn: 'Paid on',
  unitPrice: 'Price per user per month',
  tax: 'Sales and Service Tax',
  print: 'Print',
  close: 'Close',
} as const;

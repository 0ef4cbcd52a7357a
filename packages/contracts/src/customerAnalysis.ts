import { z } from 'zod';

/**
 * Customer Analysis (`/customer_analysis`; see docs/contacts.md "Customer Analysis"): who the customers of a
 * period were, how many were new, what they wrote about (the labels of their conversations) and how they felt
 * (the emotion reader's counts), and the customers who wrote most.
 */
export const CUSTOMER_ANALYSIS_DAYS = [7, 30, 90] as const;

export const CUSTOMER_ANALYSIS_STRINGS = {
  title: 'Customer Analysis',
  period: 'Period',
  days: (n: number) => `Last ${n} days`,
  customers: 'Customers',
  newCustomers: 'New customers',
  returning: 'Returning',
  conversations: 'Conversations',
  csat: 'CSAT',
  noRating: 'No ratings',
  topics: 'What they wrote about',
  noTopics: 'No labelled conversations in this period.',
  feelings: 'How they felt',
  noFeelings: 'No emotions read in this period.',
  top: 'Customers who wrote most',
  none: 'No customer conversations in this period.',
  customer: 'Customer',
  open: 'Open',
  channels: 'Channels',
  last: 'Last',
  mood: 'Mood',
  hidden: 'Contacts are hidden for your account. Ask an admin.',
} as const;

export const CustomerAnalysisQuery = z.object({
  days: z.coerce
    .number()
    .int()
    .refine((n) => (CUSTOMER_ANALYSIS_DAYS as readonly number[]).includes(n), {
      message: `days must be one of ${CUSTOMER_ANALYSIS_DAYS.join(', ')}.`,
    })
    .default(30),
});

export const CustomerAnalysis = z.object({
  days: z.number(),
  from: z.number(),
  to: z.number(),
  figures: z.object({
    customers: z.number(),
    new_customers: z.number(),
    returning: z.number(),
    conversations: z.number(),
    /** The mean rating 1-5 of the period's rated conversations, null when none was rated. */
    csat: z.number().nullable(),
    rated: z.number(),
  }),
  labels: z.array(z.object({ id: z.number(), name: z.string(), color: z.string(), tickets: z.number() })),
  emotions: z.array(z.object({ emotion: z.string(), count: z.number() })),
  customers: z.array(
    z.object({
      contact_id: z.number(),
      name: z.string(),
      conversations: z.number(),
      open: z.number(),
      channels: z.array(z.string()),
      last_at: z.number(),
      /** The emotion read most in their conversations of the period, '' when none. */
      emotion: z.string(),
    }),
  ),
});
export type CustomerAnalysis = z.infer<typeof CustomerAnalysis>;

/**
 * For tests: customers' ticket texts across five topics, written to be realistic rather than easy: each
 * topic has many phrasings, the topics share words (refunds and billing both talk of charges and money,
 * delivery and refunds of orders and returns, login and technical of the app and errors), every text carries
 * small talk, and some tickets are labelled with a neighbouring topic, as people label in a hurry.
 * Deterministic: the same seed makes the same tickets.
 */

export const TOPICS = ['Billing', 'Delivery', 'Login', 'Refund', 'Technical'] as const;
export type Topic = (typeof TOPICS)[number];

/** How often each topic comes in (billing most, technical least), so the majority class is a real baseline. */
const SHARE: Record<Topic, number> = { Billing: 0.3, Delivery: 0.25, Login: 0.2, Refund: 0.15, Technical: 0.1 };
/** The neighbour a mislabelled ticket gets. */
const NEIGHBOUR: Record<Topic, Topic> = {
  Billing: 'Refund',
  Delivery: 'Refund',
  Login: 'Technical',
  Refund: 'Billing',
  Technical: 'Login',
};

const SENTENCES: Record<Topic, string[]> = {
  Billing: [
    'I was charged twice this month for my {plan} plan',
    'my invoice shows an amount I do not recognise',
    'why did my subscription price go up on the last invoice',
    'the card on file was declined but I updated it yesterday',
    'can you send me a copy of the invoice for {month} with our VAT number',
    'there is a charge on my statement from you that I never approved',
    'I need to change the billing address on our account',
    'you billed the annual price but I chose monthly payment',
    'the payment failed and now the account says overdue',
    'please explain the extra fee on my bill',
    'I want to update my credit card details',
    'our accountant needs receipts for every payment since {month}',
  ],
  Delivery: [
    'my parcel has not arrived and it has been {days} days',
    'the tracking number says delivered but nothing came',
    'when will my order ship, it still says processing',
    'the courier left the package at the wrong address',
    'can I change the delivery address for order {order}',
    'the box arrived damaged and one item is missing',
    'tracking has not updated since {month}',
    'is express shipping available to my country',
    'the delivery was supposed to come {day} and nobody showed up',
    'my order was split in two parcels and only one arrived',
    'the driver could not find the house, can you reschedule delivery',
    'customs is holding my package, what do I need to do',
  ],
  Login: [
    'I cannot log in, it says my password is wrong',
    'the password reset email never arrives',
    'I am locked out of my account after too many attempts',
    'the two-factor code from the authenticator is not accepted',
    'how do I change the email I sign in with',
    'my account was suspended and I cannot sign in',
    'I lost my phone and cannot get the verification code',
    'the login page keeps sending me back to sign in again',
    'someone changed my password, I think my account was hacked',
    'the reset link says it has expired',
    'I forgot my username and password',
    'single sign-on with our company account stopped working',
  ],
  Refund: [
    'I returned the item {days} days ago and still have no refund',
    'I would like my money back for order {order}',
    'please cancel my order and refund the payment',
    'the refund went to an old card, can you send it again',
    'you promised a refund but the money is not on my account',
    'how long does a refund take to show on my statement',
    'I was charged for a cancelled order and want it refunded',
    'the return label does not work, how do I send it back for a refund',
    'I want a refund because the product is not as described',
    'can I get store credit instead of a refund',
    'the refund amount is less than what I paid',
    'I cancelled within the trial, please refund the charge',
  ],
  Technical: [
    'the app crashes every time I open the settings page',
    'I get error {code} when I upload a file',
    'the page is very slow and sometimes does not load at all',
    'notifications stopped working after the last update',
    'the export to CSV produces an empty file',
    'the app freezes on my phone since the update',
    'the integration with our CRM shows a sync error',
    'images do not display in the browser, only a broken icon',
    'the search returns nothing even for words I know are there',
    'after the update the app cannot connect to the server',
    'the API returns error {code} for every request',
    'the dashboard charts are blank in Firefox',
  ],
};

const OPENERS = [
  'Hi,',
  'Hello team,',
  'Good morning.',
  'Hey there,',
  'Hi, hope you are well.',
  'Dear support,',
  '',
  'I have been a customer for years and',
  'Quick question:',
  'This is the second time I write about this.',
];
const CLOSERS = [
  'Thanks.',
  'Please help as soon as possible.',
  'Thank you in advance.',
  'Regards, {name}',
  'This is really frustrating.',
  '',
  'Let me know what you need from me.',
  'I need this sorted today.',
  'Cheers',
  'Can someone call me back?',
];
const FILL: Record<string, string[]> = {
  plan: ['Pro', 'Basic', 'Team', 'Starter'],
  month: ['March', 'April', 'last month', 'January', 'the 3rd'],
  days: ['five', 'ten', '12', 'three', 'two weeks of'],
  order: ['#48213', 'A-7731', '90412', 'number 5521'],
  day: ['on Monday', 'yesterday', 'this morning', 'on Friday'],
  code: ['500', 'E42', '403', 'timeout'],
  name: ['Maria', 'Tom', 'Aisha', 'Jon', 'Lena'],
};

function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface SampleTicket {
  /** What the ticket is about. */
  topic: Topic;
  /** The label it carries (its topic, or for some a neighbouring one). */
  label: Topic;
  /** The customer's messages. */
  messages: string[];
}

/** `n` tickets; `mislabel` of them (a share) labelled with a neighbouring topic. */
export function sampleTickets(n: number, seed: number, mislabel = 0.08): SampleTicket[] {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
  const fill = (s: string) => s.replace(/\{(\w+)\}/g, (_, k: string) => pick(FILL[k] ?? ['']));
  const topicOf = () => {
    let x = r();
    for (const t of TOPICS) {
      x -= SHARE[t];
      if (x < 0) return t;
    }
    return TOPICS[0];
  };
  const out: SampleTicket[] = [];
  for (let i = 0; i < n; i++) {
    const topic = topicOf();
    // One or two sentences of the topic; now and then one of another topic (customers mention more than one thing).
    const parts = [fill(pick(SENTENCES[topic]))];
    if (r() < 0.4) parts.push(fill(pick(SENTENCES[topic])));
    if (r() < 0.2) parts.push(fill(pick(SENTENCES[pick(TOPICS)])));
    const first = `${fill(pick(OPENERS))} ${parts.join('. ')}. ${fill(pick(CLOSERS))}`.trim();
    const messages = [first];
    if (r() < 0.3) messages.push(fill(pick(['Any update?', 'Hello?', 'Still waiting on this.', 'Please reply.'])));
    out.push({ topic, label: r() < mislabel ? NEIGHBOUR[topic] : topic, messages });
  }
  return out;
}

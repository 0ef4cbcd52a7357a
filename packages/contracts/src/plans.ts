import { type Channel, PLANS } from './constants.js';

const GB = 1024 ** 3;

/** MSG-37 (design): an upload past the plan's storage. */
export const STORAGE_FULL = "Your plan's storage is full.";

/** The social and messaging channels a plan may connect (PLAN-20..22); e-mail, live chat, calls and manual
 * tickets come with every plan. */
const STARTER_CHANNELS: readonly Channel[] = ['FB_PAGE_POST', 'FB_PM', 'TW_DM', 'TW_MENTION', 'WHATSAPP'];
const BASIC_CHANNELS: readonly Channel[] = [...STARTER_CHANNELS, 'IG_PM', 'IG_POST', 'IG_MENTION', 'LINE_DM'];
const PRO_CHANNELS: readonly Channel[] = [...BASIC_CHANNELS, 'TELEGRAM'];
/** Channels no plan gates. */
const EVERY_PLAN_CHANNELS: readonly Channel[] = ['LIVECHAT', 'CALL', 'MANUAL', 'EMAIL', 'GRAPH_EMAIL', 'chat'];

/** What a plan includes; null is unlimited. */
export interface PlanEntitlements {
  slaAlertsPerMonth: number | null;
  mailboxes: number | null;
  concurrentChats: number | null;
  storageBytes: number | null;
  /** Gated channels it may connect; every other channel is always allowed; null: all of them. */
  channels: readonly Channel[] | null;
  /** PLAN-21: satisfaction surveys after a ticket (Basic and up). */
  surveys: boolean;
  /** PLAN-21: an agent may convert a running live chat to a ticket (Basic and up). */
  convertToTicket: boolean;
  /** PLAN-21: a live chat's transcript, e-mailed or downloaded (Basic and up). */
  chatTranscript: boolean;
}
export type PlanLimitKey = 'slaAlertsPerMonth' | 'mailboxes' | 'concurrentChats' | 'storageBytes';

const STARTER: PlanEntitlements = {
  slaAlertsPerMonth: 100,
  mailboxes: 5,
  concurrentChats: 5,
  storageBytes: GB,
  channels: STARTER_CHANNELS,
  surveys: false,
  convertToTicket: false,
  chatTranscript: false,
};

/**
 * PLAN-19..PLAN-23: the spec's plan limits table, the one place every limit is read from. A trial has
 * Starter's. The console plan (99) and an unknown plan have no conversations (no chats, no SLA alerts) and
 * Starter's mailboxes and storage.
 */
export const PLAN_ENTITLEMENTS: Record<number, PlanEntitlements> = {
  [PLANS.trial]: STARTER,
  [PLANS.starter]: STARTER,
  [PLANS.basic]: {
    slaAlertsPerMonth: 300,
    mailboxes: 10,
    concurrentChats: 10,
    storageBytes: 3 * GB,
    channels: BASIC_CHANNELS,
    surveys: true,
    convertToTicket: true,
    chatTranscript: true,
  },
  [PLANS.pro]: {
    slaAlertsPerMonth: 500,
    mailboxes: 15,
    concurrentChats: 15,
    storageBytes: 5 * GB,
    channels: PRO_CHANNELS,
    surveys: true,
    convertToTicket: true,
    chatTranscript: true,
  },
  [PLANS.enterprise]: {
    slaAlertsPerMonth: null,
    mailboxes: null,
    concurrentChats: null,
    storageBytes: null,
    channels: null,
    surveys: true,
    convertToTicket: true,
    chatTranscript: true,
  },
};
const NO_PLAN: PlanEntitlements = { ...STARTER, slaAlertsPerMonth: 0, concurrentChats: 0, channels: [] };

export const planEntitlements = (plan: number): PlanEntitlements =>
  Object.hasOwn(PLAN_ENTITLEMENTS, plan) ? PLAN_ENTITLEMENTS[plan]! : NO_PLAN;

/** Whether a plan may connect a channel (the social and messaging ones are gated, PLAN-20..22). */
export function mayUseChannel(plan: number, channel: Channel): boolean {
  if (EVERY_PLAN_CHANNELS.includes(channel)) return true;
  const allowed = planEntitlements(plan).channels;
  return allowed === null || allowed.includes(channel);
}

const NAMES: Record<number, string> = {
  [PLANS.trial]: 'Trial',
  [PLANS.starter]: 'Starter',
  [PLANS.basic]: 'Basic',
  [PLANS.pro]: 'Pro',
  [PLANS.enterprise]: 'Enterprise',
};
const LADDER = [PLANS.starter, PLANS.basic, PLANS.pro, PLANS.enterprise] as const;

/**
 * PLAN-24 (design): the way up from a plan's limit: the next plan that allows more, by name, and where to
 * get it. '' when no plan allows more.
 */
export function upgradePath(plan: number, key: PlanLimitKey): string {
  const now = planEntitlements(plan)[key];
  if (now === null) return '';
  // A trial has Starter's limits: the way up starts above Starter.
  const rank = plan === PLANS.trial ? PLANS.starter : plan;
  const better = LADDER.find((p) => {
    const v = planEntitlements(p)[key];
    return p > rank && (v === null || v > now);
  });
  if (better === undefined) return '';
  if (better === PLANS.enterprise) return 'Enterprise has no limit: contact sales from the Plans page.';
  const allows = planEntitlements(better)[key] ?? 0;
  return `${NAMES[better]} allows ${formatLimit(key, allows)}: upgrade on the Plans page.`;
}

const formatLimit = (key: PlanLimitKey, n: number) => (key === 'storageBytes' ? `${n / GB} GB` : String(n));

/** "Your Starter plan" (a trial reads "Your trial"). */
export const yourPlan = (plan: number) =>
  plan === PLANS.trial ? 'Your trial' : NAMES[plan] ? `Your ${NAMES[plan]} plan` : 'Your plan';

/**
 * PLAN-24 (design): what a refusal at a limit says: the limit in the words of its screen, then the way up.
 * The first sentences are those each module answered before (tests name them).
 */
export function planLimitWords(key: Exclude<PlanLimitKey, 'slaAlertsPerMonth'>, plan: number, limit: number): string {
  const first =
    key === 'mailboxes'
      ? `${yourPlan(plan)} allows ${limit} e-mail ${limit === 1 ? 'mailbox' : 'mailboxes'}.`
      : key === 'concurrentChats'
        ? `You have reached your plan's limit of ${limit} concurrent live chats.`
        : STORAGE_FULL;
  const up = upgradePath(plan, key);
  return up ? `${first} ${up}` : first;
}

/**
 * PLAN-20..22 (design): what connecting a channel the plan does not include says: the plan, the channel by
 * its display name, and the first plan that has it.
 */
export function channelPlanWords(plan: number, channel: Channel, name: string): string {
  const first = `${yourPlan(plan)} does not include ${name}.`;
  const rank = plan === PLANS.trial ? PLANS.starter : plan;
  const better = LADDER.find((p) => p > rank && mayUseChannel(p, channel));
  if (better === undefined) return first;
  if (better === PLANS.enterprise) return `${first} Enterprise has every channel: contact sales from the Plans page.`;
  return `${first} ${NAMES[better]} has it: upgrade on the Plans page.`;
}

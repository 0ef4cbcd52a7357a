/** Product-wide constants from the spec (section 9 of both documents) and DECISIONS.md. */

/** Admin, supervisor and agent. */
export const USER_TYPES = ['admin', 'supervisor', 'agent'] as const;
export type UserType = (typeof USER_TYPES)[number];

/** Plan codes. 99 is "unknown yet" on the client, or a console-only account. */
export const PLANS = { trial: 0, starter: 1, basic: 2, pro: 3, enterprise: 4, console: 99 } as const;

/**
 * PLAN-03, PLAN-10: account type 0 is a trial account (its trial ends; it reaches only TRIAL_PATHS); 1 is an
 * account past its trial: one that has paid, or the workspace a self-hosted server is set up with.
 */
export const ACCOUNT_TYPES = { trial: 0, regular: 1 } as const;
export const isTrialAccount = (accountType: number | undefined) => accountType === ACCOUNT_TYPES.trial;

/** Host variants. */
export const HOST_VARIANTS = ['support', 'trading', 'combined'] as const;
export type HostVariant = (typeof HOST_VARIANTS)[number];

/** STATUS: the agent's selectable statuses; OFFLINE only when disconnected. */
export const AGENT_STATUSES = ['ONLINE', 'AWAY', 'BUSY', 'MEAL_BREAK', 'WASHROOM', 'PRAYER'] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number] | 'OFFLINE';

/** Canonical channel codes and display names. */
export const CHANNELS = {
  chat: 'Workspace',
  LIVECHAT: 'Live Chat',
  CALL: 'Call',
  MANUAL: 'Manual',
  EMAIL: 'Email',
  GRAPH_EMAIL: 'Email',
  WAUCHAT: 'Chat Bot',
  WHATSAPP: 'Whatsapp',
  FB_PM: 'Facebook Messenger',
  FB_PAGE_POST: 'Facebook Post',
  IG_PM: 'Instagram Direct Message',
  IG_POST: 'Instagram Post',
  IG_MENTION: 'Instagram Mentions',
  TW_DM: 'Twitter Direct Message',
  TW_MENTION: 'Twitter Mentions',
  LINE_DM: 'Line Direct Message',
  TELEGRAM: 'Telegram',
  SMS: 'SMS',
} as const;
export type Channel = keyof typeof CHANNELS;
/** TICKET-19: a live chat's ticket has either stored spelling of its channel code. */
export const LIVECHAT_CODES = ['LIVECHAT', 'livechat'] as const;
/** The e-mail channels: a mailbox over IMAP and SMTP, or a Microsoft 365 mailbox through Graph. */
export const EMAIL_CHANNELS = ['EMAIL', 'GRAPH_EMAIL'] as const;

/** Default ticket status codes; 4 means "all" in filters, 5+ are custom. */
export const TICKET_STATUS = { open: 0, pending: 1, resolved: 2, closed: 3, all: 4 } as const;
/** The status codes of a ticket that is done with, Resolved or Closed. */
export const DONE_TICKET_STATUSES = [TICKET_STATUS.resolved, TICKET_STATUS.closed];
/** The ticket is done with (Resolved or Closed); open, pending and custom codes are not. */
export const isDone = (closed: number) => closed === TICKET_STATUS.resolved || closed === TICKET_STATUS.closed;

/** AUTH-20, AUTH-22, AUTH-24: the client's session loop. */
export const AUTH_CHECK_INTERVAL_MS = 300_000;
export const AUTH_RETRY_DELAY_MS = 5_000;
export const AUTH_MAX_RETRIES = 5;
/** The realtime socket retries after 5 s (A §9). */
export const SOCKET_RETRY_MS = 5_000;

/** AUTH-11: one cookie carries the session token, one the refresh token; about one year. */
export const SESSION_COOKIE = 'parley_token';
export const REFRESH_COOKIE = 'parley_refresh';
export const SESSION_TTL_DAYS = 365;

/** PLAN-14, PLAN-15: exact strings, typo included. */
export const EXPIRED_TRIAL = 'Your trial has ended. Please upgrade to continue.';
export const EXPIRED_SUBSCRIPTION = 'You subscription has expired. Please make payment to continue.';
/** Days a new sign-up may use the product before it must upgrade. */
export const TRIAL_DAYS = 14;
/** A trial account reaches only these signed-in paths; any other sends it to `/`. */
export const TRIAL_PATHS = ['/', '/ticket', '/livechat', '/chat', '/plan', '/payment', '/kb', '/support'] as const;
/** Sign-in throttling: more failures than this for one username or IP in the window are refused. */
export const SIGNIN_MAX_FAILURES = 10;
export const SIGNIN_WINDOW_MS = 15 * 60 * 1000;
export const TOO_MANY_ATTEMPTS = 'Too many failed sign-in attempts. Please wait 15 minutes and try again.';
export const TFA_REQUIRED = '2FA required.';
/**
 * AUTH-30 (design): the sign-in form sends `type` admin or agent. Signing in as admin is for admins: an
 * agent or supervisor who chose Admin gets this (after a correct password only, so it reveals nothing to a
 * guesser). An admin may sign in as agent; the session always has the user's own type.
 */
export const NOT_AN_ADMIN = 'This user is not an admin. Choose Agent to sign in.';

/** Account feature flags that replace hard-coded client ids. */
export const ACCOUNT_FEATURES = ['dashboard', 'scam_calls', 'customer_analysis'] as const;

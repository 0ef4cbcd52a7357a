import { z } from 'zod';
import { type HostVariant, PLANS } from './constants.js';
import { UNIX_MS_MAX } from './messages.js';

// ---------------------------------------------------------------------------------------------------------
// Left navigation panel (NAV-03 .. NAV-28)
// ---------------------------------------------------------------------------------------------------------

export type NavKey =
  | 'home'
  | 'report'
  | 'tickets'
  | 'chats'
  | 'livechats'
  | 'analyst_intelligence'
  | 'prediction_validator'
  | 'integrated_insight'
  | 'ai_learning'
  | 'scam_calls'
  | 'kanban'
  | 'contacts'
  | 'customer_analysis'
  | 'case'
  | 'calendar'
  | 'knowledgebase'
  | 'call'
  | 'incoming_call'
  | 'call_report'
  | 'supervisory'
  | 'call_config'
  | 'support';

export interface NavItem {
  key: NavKey;
  route: string;
  label: string;
  /** A first-time hint shown beside the item (NAV-14). */
  hint?: string;
}

/** What the visibility rules look at. */
export interface NavContext {
  variant: HostVariant;
  isAdmin: boolean;
  permissions: readonly string[];
  plan: number;
  /** Account feature flags: `scam_calls`, `customer_analysis`, `dashboard`. */
  features: readonly string[];
  /** A call is ringing and shown outside the call pages (NAV-16, NAV-17). */
  incomingCall?: boolean;
}

/** Every entry of the navigation table, in order. Labels of the trading pages are ours (NAV-08). */
export const NAV_ITEMS: readonly NavItem[] = [
  { key: 'home', route: '/', label: 'Home' },
  { key: 'report', route: '/report/omnichannel', label: 'Report' },
  { key: 'tickets', route: '/ticket', label: 'Tickets' },
  { key: 'chats', route: '/chat', label: 'Chats' },
  // Design: the live chats have an entry on wide screens too, as phones have their tab.
  { key: 'livechats', route: '/livechat', label: 'Live Chats' },
  { key: 'analyst_intelligence', route: '/analyst_intelligence', label: 'Analyst Intelligence' },
  { key: 'prediction_validator', route: '/prediction_validator', label: 'Prediction Validator' },
  { key: 'integrated_insight', route: '/integrated_insight', label: 'Integrated Insight' },
  { key: 'ai_learning', route: '/ai_learning', label: 'AI Learning' },
  { key: 'scam_calls', route: '/call_verification', label: 'Scam Calls' },
  { key: 'kanban', route: '/kanban', label: 'Kanban' },
  { key: 'contacts', route: '/contacts', label: 'Contacts' },
  { key: 'customer_analysis', route: '/customer_analysis', label: 'Customer Analysis' },
  { key: 'case', route: '/case', label: 'Case Management' },
  { key: 'calendar', route: '/calendar', label: 'Calendar', hint: 'View events and holidays' },
  { key: 'knowledgebase', route: '/support/kb/en', label: 'Knowledgebase' },
  { key: 'call', route: '/call', label: 'Call' },
  { key: 'incoming_call', route: '/call/ongoing', label: 'Incoming Call' },
  { key: 'call_report', route: '/report/call', label: 'Call Report' },
  { key: 'supervisory', route: '/supervisory', label: 'Supervisory' },
  { key: 'call_config', route: '/call_config', label: 'Call Configurations' },
  { key: 'support', route: '/support/manual/en', label: 'Support' },
];

const TRADING_PAGES: readonly NavKey[] = [
  'analyst_intelligence',
  'prediction_validator',
  'integrated_insight',
  'ai_learning',
];

/** Plans that count as Professional (Pro), Enterprise or Premium (Enterprise). */
const CUSTOMER_ANALYSIS_PLANS = [3, 4];

/**
 * NAV-22 .. NAV-24: admins always see permission-gated items; hide_* apply to non-admins only.
 * `support` is the support/call variant, so "support" and "call" gates both mean it.
 */
export function isNavItemVisible(key: NavKey, c: NavContext): boolean {
  const has = (p: string) => c.permissions.includes(p);
  const hidden = (p: string) => !c.isAdmin && has(p);
  const supportOrCombined = c.variant === 'support' || c.variant === 'combined';
  if (TRADING_PAGES.includes(key)) return c.isAdmin && c.variant === 'trading';
  switch (key) {
    case 'home':
    case 'knowledgebase':
    case 'support':
      return true;
    case 'report':
      return (c.isAdmin || has('view_report')) && supportOrCombined;
    case 'tickets':
      return c.variant === 'combined';
    case 'chats':
      return supportOrCombined && !hidden('hide_chat');
    case 'livechats':
      // A console account has no conversation lists (PLAN-09).
      return c.plan !== PLANS.console;
    case 'scam_calls':
      return c.isAdmin && c.features.includes('scam_calls') && supportOrCombined;
    case 'kanban':
      return c.isAdmin && !has('hide_kanban');
    case 'contacts':
      return !hidden('hide_contacts');
    case 'customer_analysis':
      return (
        (c.features.includes('customer_analysis') || CUSTOMER_ANALYSIS_PLANS.includes(c.plan)) &&
        c.variant === 'combined'
      );
    case 'case':
      return !hidden('hide_case');
    case 'calendar':
      return !hidden('hide_calendar');
    case 'call':
      return !hidden('hide_call') && !c.incomingCall;
    case 'incoming_call':
      return Boolean(c.incomingCall);
    case 'call_report':
    case 'supervisory':
      return c.isAdmin || has('view_report');
    case 'call_config':
      return c.isAdmin || has('call_settings');
    default:
      return false;
  }
}

export const visibleNavItems = (c: NavContext) => NAV_ITEMS.filter((i) => isNavItemVisible(i.key, c));

/** Items kept visible when the panel is minimized, until the user chooses otherwise (NAV-29). */
export const DEFAULT_PINNED_NAV: readonly NavKey[] = ['home', 'tickets', 'chats', 'contacts', 'call'];

/** NAV-30 .. NAV-33. The hint that the first document cuts off with "..." is written out in full here. */
export const NAV_HINTS = {
  minimized: 'Some items are hidden when the panel is minimized...',
  minimizedMore: 'Pin the ones you use most with the pencil, and they stay when the panel is small.',
  gotIt: 'Got It!',
  editVisibility: 'Change visibility of menu items when minimized.',
  avatar: 'Change your profile picture in settings.',
} as const;

export const LOG_OUT_CONFIRM = 'Are you sure you want to log out?';

// ---------------------------------------------------------------------------------------------------------
// Cookies and local keys (NAV-32, NAV-39, SHELL-65, SHELL-66)
// ---------------------------------------------------------------------------------------------------------

/** About one year, for the theme, rich-link, hint and display cookies. */
export const PREFERENCE_COOKIE_DAYS = 365;
export const COOKIES = {
  dark: 'dark',
  autoDark: 'auto_dark',
  richLink: 'rich_link',
  avatarHint: 'avatar_hint_seen',
  /** NAV-40: the name the panel shows for the user, as last set. */
  displayName: 'display_name',
  /** NAV-40: 1 keeps the panel expanded, 0 lets it collapse. */
  alwaysDisplay: 'always_display',
} as const;

export const LOCAL_KEYS = {
  pinnedNav: 'parley.nav.pinned',
  navHintsSeen: 'parley.nav.hints',
  bottomTab: 'parley.bottomTab',
  lastTicketPath: 'parley.lastTicketPath',
  notificationPrompt: 'parley.notificationPrompt',
  dismissedAnnouncement: 'parley.announcement.dismissed',
} as const;

// ---------------------------------------------------------------------------------------------------------
// The Incoming Call entry (NAV-16, NAV-17, CALL-15, CALL-16, CALL-22 .. CALL-28)
// ---------------------------------------------------------------------------------------------------------

const KEYPRESS_LANGUAGES: Record<string, string> = { '1': 'English', '2': 'Malay', '3': 'Chinese' };
const KEYPRESS_PRODUCTS = ['TV', 'Aircon', 'Refrigerator', 'Washing Machine', 'Commercial Display', 'Other Enquiries'];

/**
 * CALL-23 .. CALL-28: what the caller pressed in the phone menu: 1 to 3 a language, 11 to 36 a language (the
 * tens) and a product (the units, 1 to 6), shown "English · Aircon"; anything else "Unknown Keypress" and the
 * code. (Design: the call server passes it in the INVITE's `X-Keypress` header.)
 */
export function keypressLabel(code: string): string {
  const c = code.trim();
  const language = KEYPRESS_LANGUAGES[c];
  if (language) return language;
  const m = /^([1-3])([1-6])$/.exec(c);
  if (m) return `${KEYPRESS_LANGUAGES[m[1]!]} · ${KEYPRESS_PRODUCTS[Number(m[2]) - 1]}`;
  return `Unknown Keypress ${c}`;
}

export const INCOMING_CALL_STRINGS = {
  accept: 'Accept',
  decline: 'Decline',
  unknownCaller: 'Unknown caller',
  onCall: (who: string) => `On a call with ${who}`,
  hangUp: 'Hang up',
} as const;

// ---------------------------------------------------------------------------------------------------------
// Bottom tabs on narrow screens (SHELL-33 .. SHELL-35, HOST-06)
// ---------------------------------------------------------------------------------------------------------

export type BottomTab = 'ticket' | 'livechat' | 'chat';
export const BOTTOM_TABS: Record<BottomTab, { label: string; route: string }> = {
  ticket: { label: 'Tickets', route: '/ticket' },
  livechat: { label: 'Live Chats', route: '/livechat' },
  chat: { label: 'Workspace', route: '/chat' },
};
export const DEFAULT_BOTTOM_TAB: BottomTab = 'chat';
/**
 * Tickets only on the combined variant; the Workspace tab comes first on the support variant (HOST-06); no
 * Workspace where the chat view is not allowed (HOST-07).
 */
export function bottomTabsFor(variant: HostVariant, chatAllowed = true): BottomTab[] {
  const tabs: BottomTab[] =
    variant === 'combined'
      ? ['ticket', 'livechat', 'chat']
      : variant === 'support'
        ? ['chat', 'livechat']
        : ['livechat', 'chat'];
  return chatAllowed ? tabs : tabs.filter((t) => t !== 'chat');
}

/** HOST-07: a local address: localhost (and *.localhost), 127.0.0.0/8 or ::1, with or without a port. */
export function isLocalHost(host: string): boolean {
  const h = host
    .toLowerCase()
    .replace(/^\[(.*)\](:\d+)?$/, '$1')
    .replace(/^([^:]*):\d+$/, '$1');
  return h === 'localhost' || h.endsWith('.localhost') || /^127(\.\d{1,3}){3}$/.test(h) || h === '::1';
}

/**
 * HOST-07 (design): the chat view is allowed on the product's own hosts and on local ones. The product's
 * hosts are those named in the host-to-variant map; with no map every host is the product's.
 */
export function chatViewAllowed(host: string, productHosts: readonly string[]): boolean {
  if (productHosts.length === 0 || isLocalHost(host)) return true;
  const bare = host.toLowerCase().replace(/:\d+$/, '');
  return productHosts.some((p) => p.toLowerCase() === bare || p.toLowerCase() === host.toLowerCase());
}

/** HOST-07: what the chat view says on a host where it is not allowed (ours). */
export const CHAT_NOT_ALLOWED = {
  title: 'Workspace is not available here',
  body: "Open Parley at its own address to chat with your team. This address only serves the product's other screens.",
} as const;

// ---------------------------------------------------------------------------------------------------------
// Pagination (SHELL-51, SHELL-52)
// ---------------------------------------------------------------------------------------------------------

export type PageSlot = number | 'gap';
/**
 * SHELL-52: the window is 5 pages centred on the current one (shifted at the edges), plus the first and
 * last page, with a gap mark where pages are skipped. Pages are 1-based.
 */
export function pageWindow(current: number, total: number, size = 5): PageSlot[] {
  if (total <= 0) return [];
  const cur = Math.min(Math.max(1, current), total);
  let start = Math.max(1, cur - Math.floor(size / 2));
  const end = Math.min(total, start + size - 1);
  start = Math.max(1, end - size + 1);
  const out: PageSlot[] = [];
  if (start > 1) out.push(1);
  if (start > 2) out.push('gap');
  for (let p = start; p <= end; p++) out.push(p);
  if (end < total - 1) out.push('gap');
  if (end < total) out.push(total);
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Generic input dialog (SHELL-42 .. SHELL-48)
// ---------------------------------------------------------------------------------------------------------

export const ID_TYPES = [
  'None',
  'MyKad ID',
  'MyKid ID',
  'PR MyKad',
  'Passport No.',
  'Army ID',
  'Police ID',
  'Baby of (B/O)',
] as const;
export const REFUSES_TO_PROVIDE = 'Refuses to provide';

/** SHELL-46: the value of an id input. */
export function identityValue(idType: string, refused: boolean, number: string): string {
  if (idType === 'None' || refused) return REFUSES_TO_PROVIDE;
  return number.trim();
}
/** SHELL-46: the identity number field shows only for a real ID type that was not refused. */
export const showsIdentityNumber = (idType: string, refused: boolean) => idType !== 'None' && !refused;

/**
 * CONST-02: a date is written YYYY-MM-DD; an invalid date gives "". Takes a Date or milliseconds (its local
 * calendar day) or a string starting with a real YYYY-MM-DD date (a time after it is ignored).
 */
export function formatDate(input: string | number | Date | null | undefined): string {
  if (input === null || input === undefined || input === '') return '';
  let y: number;
  let m: number;
  let d: number;
  if (typeof input === 'string') {
    const match = /^(\d{4})-(\d{2})-(\d{2})/.exec(input.trim());
    if (!match) return '';
    [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])];
    const check = new Date(Date.UTC(y, m - 1, d));
    if (check.getUTCFullYear() !== y || check.getUTCMonth() !== m - 1 || check.getUTCDate() !== d) return '';
  } else {
    const date = typeof input === 'number' ? new Date(input) : input;
    if (Number.isNaN(date.getTime())) return '';
    [y, m, d] = [date.getFullYear(), date.getMonth() + 1, date.getDate()];
  }
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${String(y).padStart(4, '0')}-${pad(m)}-${pad(d)}`;
}

/** D/M/YYYY, a day as every screen shows it (TICKET-63's format); '' when not a real day (CONST-02). */
export function shownDay(input: string | number | Date | null | undefined): string {
  const iso = formatDate(input);
  if (!iso) return '';
  const [y, m, d] = iso.split('-').map(Number);
  return `${d}/${m}/${y}`;
}

/** SHELL-47: a date from the input dialog becomes "YYYY-MM-DD 00:00:00"; an invalid date gives "". */
export function dialogDateValue(input: string | Date | null | undefined): string {
  const day = formatDate(input);
  return day ? `${day} 00:00:00` : '';
}

// ---------------------------------------------------------------------------------------------------------
// Settings modal sections (SHELL-53, SHELL-54)
// ---------------------------------------------------------------------------------------------------------

/** The settings sections by index. 17 is subscriptions and billing (SHELL-53); the rest are ours. */
export const SETTINGS_SECTIONS: Record<number, { key: string; label: string; admin?: boolean }> = {
  0: { key: 'security', label: 'Security' },
  1: { key: 'sessions', label: 'Sessions' },
  2: { key: 'appearance', label: 'Appearance' },
  3: { key: 'users', label: 'Users', admin: true },
  4: { key: 'statuses', label: 'Statuses', admin: true },
  5: { key: 'announcements', label: 'Announcements', admin: true },
  6: { key: 'account', label: 'Account', admin: true },
  7: { key: 'audit', label: 'Audit log', admin: true },
  8: { key: 'departments', label: 'Departments', admin: true },
  9: { key: 'labels', label: 'Labels', admin: true },
  10: { key: 'tickets', label: 'Tickets', admin: true },
  /** The live chat widget's embed snippet and automatic offering. */
  11: { key: 'livechat', label: 'Live chat', admin: true },
  /** Design: business hours, holidays and SLA policies (docs/sla.md). */
  12: { key: 'sla', label: 'Business hours & SLA', admin: true },
  /** The e-mail channel: the account's mailboxes, fetched by IMAP (docs/email.md). */
  13: { key: 'mailboxes', label: 'Mailboxes', admin: true },
  /** Messaging channels: WhatsApp numbers and Telegram bots whose messages become tickets. */
  14: { key: 'channels', label: 'Channels', admin: true },
  /** Beyond the spec: everyone's own canned replies (admins also the shared ones), and the account's macros. */
  15: { key: 'replies', label: 'Canned replies' },
  16: { key: 'macros', label: 'Macros', admin: true },
  17: { key: 'billing', label: 'Subscriptions and billing', admin: true },
  /** API tokens (everyone: their personal ones; admins also the account's) and webhooks (admins). */
  18: { key: 'integrations', label: 'API and webhooks' },
  /** Beyond the spec: automation rules (docs/automation.md). */
  19: { key: 'automation', label: 'Automation', admin: true },
  /** Beyond the spec: the engine that guides agents (built-in or a language model) and the translator (docs/ai.md). */
  20: { key: 'ai', label: 'AI', admin: true },
  /** Beyond the spec: data retention rules (docs/retention.md). */
  21: { key: 'retention', label: 'Data retention', admin: true },
  /** Beyond the spec: single sign-on through OpenID Connect or SAML 2.0 (docs/sso.md). */
  22: { key: 'sso', label: 'Single sign-on', admin: true },
  /** Beyond the spec: this browser's encryption keys, their creation, import and rotation (docs/encryption.md). */
  23: { key: 'encryption', label: 'Encryption' },
};
/** SHELL-53: the section index of subscriptions and billing (the plans screen). */
export const BILLING_SECTION = 17;

// ---------------------------------------------------------------------------------------------------------
// Announcements (SHELL-37, SHELL-38)
// ---------------------------------------------------------------------------------------------------------

export const Announcement = z.object({
  id: z.number(),
  message: z.string(),
  level: z.enum(['info', 'warning']),
  created_at: z.number(),
  created_by: z.string(),
  /** After this (ms) the banner no longer shows; null: until replaced or removed. */
  expires_at: z.number().nullable(),
});
export type Announcement = z.infer<typeof Announcement>;
export const PublishAnnouncementInput = z.object({
  message: z
    .string({ error: 'Message is required.' })
    .trim()
    .min(1, 'Message is required.')
    .max(500, 'Message is too long.'),
  level: z.enum(['info', 'warning']).optional().default('info'),
  expires_at: z.number().int().positive().max(UNIX_MS_MAX).nullable().optional().default(null),
});
export type PublishAnnouncementInput = z.infer<typeof PublishAnnouncementInput>;
/** Payload of `announcementMessage` and of the `getAnnouncement` acknowledgement: null when none shows. */
export const AnnouncementMessage = z.object({ announcement: Announcement.nullable() });
export type AnnouncementMessage = z.infer<typeof AnnouncementMessage>;

// ---------------------------------------------------------------------------------------------------------
// Strings (SHELL-*)
// ---------------------------------------------------------------------------------------------------------

export const SHELL_STRINGS = {
  notFoundTitle: 'Error 404',
  notFoundBody: 'The page you have requested was not found.',
  maxRetries: 'maximum retries exceeded',
  crashTitle: 'Something went wrong',
  crashBody:
    'Parley ran into a problem and needs to refresh. If it keeps happening, send the details below to support.',
  refreshNow: 'Refresh Now',
  noConnection: 'No connection. Messages you send will wait until the connection is back.',
  reconnect: 'Reconnect',
  goOnline: 'Go Online',
  dismiss: 'Dismiss',
  updateAvailable: "Update is available. What's new: ",
  refresh: 'Refresh',
  notificationPrompt: 'Click here to enable browser notification',
  notificationNoThanks: 'No thanks',
  interactionRequired: 'Please close this to activate sound.',
  removedTitle: "You've got removed!",
  removedBody: 'You are not longer a participant in this conversation.',
  errorTitle: 'Error!',
  /**
   * ERR-01, ERR-03 (design): an action with no form of its own to show a failure in (a banner's or a menu's
   * button) tells it in the error modal: what did not happen, then why.
   */
  statusNotChanged: 'Your status was not changed.',
  unreachable: 'The server could not be reached. Check your connection and try again.',
  emptyChat: "It's empty.",
  emptyChatBody: 'Your messages will appear here after selecting a conversation.',
  chatCrashed: 'Ops! The chat has crashed unexpectedly.',
  incomingLiveChats: 'Take one',
  /**
   * CALL-04, CALL-05 (design): the SIP message banner shows while the user's SIP line is active (CALL-03)
   * but the softphone cannot work in this browser; Dismiss hides it for this browser session.
   */
  sipMicBlocked:
    'Your phone line is on, but this browser blocks the microphone. Allow the microphone for this site, then reload.',
  sipNoMic: 'Your phone line is on, but no microphone was found. Connect one to take or make calls.',
  sipInsecure:
    'Your phone line is on, but calls cannot work on this address: browsers allow the microphone only on a secure (https) address.',
} as const;

/** SHELL-59: toast duration; SHELL-58: at most 3 at once. */
export const TOAST_MS = 3_000;
export const TOAST_LIMIT = 3;
/** SHELL-68: a screen that fails to load is retried this many times, this far apart. */
export const LAZY_RETRIES = 5;
export const LAZY_RETRY_MS = 5_000;

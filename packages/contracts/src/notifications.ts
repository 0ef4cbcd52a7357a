import { z } from 'zod';

/**
 * Notifications (NOTIF-01..38). Rules both sides need: the categories and how the check
 * flags map to them, the item shape, paging, the relative time, the strings, and the Web Push subscription.
 */

/** NOTIF-07: the three categories, one per tab. */
export const NOTIFICATION_CATEGORIES = ['sla', 'system', 'trade'] as const;
export type NotificationCategory = (typeof NOTIFICATION_CATEGORIES)[number];

/** NOTIF-08: notification types; Bullish and Bearish belong to the trade tab. */
export const NOTIFICATION_TYPES = ['violation', 'success', 'warning', 'others', 'Bullish', 'Bearish'] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

/** NOTIF-07: the channel a notification points at. */
export const NOTIFICATION_CHANNELS = ['ticket', 'livechat', 'x'] as const;
export type NotificationChannel = (typeof NOTIFICATION_CHANNELS)[number];

/** NOTIF-26: page size. */
export const NOTIFICATION_PAGE_SIZE = 10;

/** NOTIF-14, HOST-09: the tab the panel selects when first opened: Trade on the trading host, else SLA. */
export const firstNotificationTab = (variant: string | undefined): NotificationCategory =>
  variant === 'trading' ? 'trade' : 'sla';
/** NOTIF-20: the notification sound plays at 0.5. */
export const NOTIFICATION_VOLUME = 0.5;

/** Check flag -> tab. unread -> SLA, unread_2 -> System, unread_3 -> Trade. */
export const CHECK_FLAG_OF: Record<NotificationCategory, 'unread' | 'unread_2' | 'unread_3'> = {
  sla: 'unread',
  system: 'unread_2',
  trade: 'unread_3',
};

/** NOTIF-07, NOTIF-10: the avatar is `{uid, file_name}`; null when the notification has no picture. */
export const NotificationImg = z.object({ uid: z.string(), file_name: z.string() });

/** NOTIF-07: one notification. `ts` in unix seconds; `seen` true once read. */
export const Notification = z.object({
  id: z.number(),
  seen: z.boolean(),
  type: z.enum(NOTIFICATION_TYPES),
  channel: z.enum(NOTIFICATION_CHANNELS),
  title: z.string(),
  body: z.string(),
  ts: z.number(),
  img: NotificationImg.nullable(),
  ticket_number: z.number().nullable(),
  category: z.enum(NOTIFICATION_CATEGORIES),
});
export type Notification = z.infer<typeof Notification>;

/** NOTIF-16: the `newNotification` socket event: the category and the notification fields. */
export type NewNotification = Notification;

/** NOTIF-22: `GET /notification/check` answer. */
export const NotificationCheckAnswer = z.object({
  result: z.literal('success'),
  unread: z.boolean(),
  unread_2: z.boolean(),
  unread_3: z.boolean(),
});
export type NotificationCheckAnswer = z.infer<typeof NotificationCheckAnswer>;

const idParam = z
  .string()
  .regex(/^\d{1,15}$/, 'lastId must be a whole number.')
  .transform(Number);

/**
 * NOTIF-24, NOTIF-25: `GET /notification/get?type=&offset=&lastId=`. Design: `lastId` (the id of the last item
 * loaded) wins; the next page is the 10 items older than it. Without it, `offset` skips that many. Newest first.
 */
export const NotificationGetQuery = z.object({
  type: z.enum(NOTIFICATION_CATEGORIES),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
  lastId: idParam.optional(),
  token: z.string().optional(),
  _token: z.string().optional(),
});
export type NotificationGetQuery = z.input<typeof NotificationGetQuery>;
/** The answer is the array itself (NOTIF-24: "array of notifications"). */
export const NotificationGetAnswer = z.array(Notification);

/**
 * NOTIF-27, NOTIF-28: marks read every notification of the caller in `category` up to and
 * including `lastId` (all of them without it). A `lastId` that is not one of the caller's notifications is 404.
 */
export const NotificationReadInput = z.object({
  lastId: z.coerce.number().int().positive().optional(),
  category: z.enum(NOTIFICATION_CATEGORIES),
  _token: z.string().optional(),
});
export type NotificationReadInput = z.infer<typeof NotificationReadInput>;

/** NOTIF-29: removes one notification of the caller; another user's is 404 and nothing changes. */
export const NotificationRemoveInput = z.object({
  id: z.coerce.number().int().positive(),
  _token: z.string().optional(),
});
export type NotificationRemoveInput = z.infer<typeof NotificationRemoveInput>;

export const NotificationResultAnswer = z.object({ result: z.literal('success') });

export const NOTIFICATION_STRINGS = {
  title: 'Notifications',
  tabs: { sla: 'SLA', trade: 'Trade', system: 'System' } as Record<NotificationCategory, string>,
  empty: 'No Notification',
  showMore: 'Show More...',
  view: 'View',
  close: 'Close',
  sound: 'Sound',
  notFound: 'Notification not found.',
  badSubscription: 'The token is not a valid Web Push subscription.',
} as const;

/**
 * NOTIF-30, NOTIF-31 (design): "Now" at 5 s or less, then "N seconds ago", "N minutes ago", "N hours ago"
 * (under 24), "N days ago" (under 7), "N weeks ago"; singular for 1 ("1 minute ago"). Future times read "Now".
 */
export function relativeTime(tsSeconds: number, nowMs: number): string {
  const s = Math.floor(nowMs / 1000 - tsSeconds);
  if (s <= 5) return 'Now';
  const unit = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'} ago`;
  if (s < 60) return unit(s, 'second');
  const m = Math.floor(s / 60);
  if (m < 60) return unit(m, 'minute');
  const h = Math.floor(m / 60);
  if (h < 24) return unit(h, 'hour');
  const d = Math.floor(h / 24);
  if (d < 7) return unit(d, 'day');
  return unit(Math.floor(d / 7), 'week');
}

/**
 * NOTIF-10, NOTIF-11 (design): avatars are served by this server at `/cdn/avatar/{uid}/{file_name}?w=50&h=50`
 * (the content-delivery path; a CDN may front it).
 */
export const avatarUrl = (img: { uid: string; file_name: string }) =>
  `/cdn/avatar/${encodeURIComponent(img.uid)}/${encodeURIComponent(img.file_name)}?w=50&h=50`;

/** NOTIF-06 (design): View leads to the ticket (or live chat) by its number. */
export function notificationLink(n: Pick<Notification, 'channel' | 'ticket_number'>): string | null {
  if (n.ticket_number === null) return null;
  if (n.channel === 'livechat') return `/livechat?number=${n.ticket_number}`;
  return `/ticket?number=${n.ticket_number}`;
}

// ---------------------------------------------------------------------------------------------------------
// Web Push (NOTIF-35, NOTIF-36)
// ---------------------------------------------------------------------------------------------------------

const b64url = (bytes: number) =>
  z
    .string()
    .regex(/^[A-Za-z0-9_-]+={0,2}$/)
    .refine((s) => {
      const clean = s.replace(/=+$/, '');
      return Math.floor((clean.length * 3) / 4) === bytes;
    });

/** A browser PushSubscription as `subscription.toJSON()` gives it: an https endpoint and its two keys. */
export const PushSubscriptionJson = z.object({
  endpoint: z
    .string()
    .max(2000)
    .url()
    .refine((u) => u.startsWith('https://')),
  expirationTime: z.number().nullable().optional(),
  keys: z.object({
    /** Uncompressed P-256 public key: 65 bytes. */
    p256dh: b64url(65),
    /** Authentication secret: 16 bytes. */
    auth: b64url(16),
  }),
});
export type PushSubscriptionJson = z.infer<typeof PushSubscriptionJson>;

/**
 * NOTIF-37, NOTIF-38: the channels offered in the per-channel MessageNotification choice: every channel that
 * carries a conversation (not the internal Workspace chat, not calls). GRAPH_EMAIL follows the Email choice.
 */
export const MESSAGE_NOTIFICATION_CHANNELS = [
  'LIVECHAT',
  'EMAIL',
  'MANUAL',
  'WHATSAPP',
  'FB_PM',
  'FB_PAGE_POST',
  'IG_PM',
  'IG_POST',
  'IG_MENTION',
  'TW_DM',
  'TW_MENTION',
  'LINE_DM',
  'TELEGRAM',
  'SMS',
  'WAUCHAT',
] as const;
export type MessageNotificationChannel = (typeof MESSAGE_NOTIFICATION_CHANNELS)[number];

/** The choice a ticket's channel code follows (`livechat` is LIVECHAT, GRAPH_EMAIL is EMAIL). */
export const messagePrefChannel = (code: string) => {
  const c = code.toUpperCase();
  return c === 'GRAPH_EMAIL' ? 'EMAIL' : c;
};

/**
 * NOTIF-35: `POST /api/fcm/token {token, type: 'web', domain}`. Design: `token` is the Web Push subscription
 * (the object, or its JSON text).
 */
export const FcmTokenInput = z.object({
  token: z.union([z.string().max(4000), z.record(z.string(), z.unknown())]),
  type: z.literal('web').default('web'),
  domain: z.string().max(255).default(''),
  /**
   * NOTIF-37, NOTIF-38 (design): the channels whose MessageNotification choice is off in this browser, so the
   * server sends no Web Push of a new message on them to this subscription. Absent: the stored choice stays
   * (a new subscription has every channel on); `[]`: every channel on. Unknown names, repeats or a longer list
   * than there are channels are a 400.
   */
  channels_off: z
    .array(z.enum(MESSAGE_NOTIFICATION_CHANNELS))
    .max(MESSAGE_NOTIFICATION_CHANNELS.length)
    .refine((a) => new Set(a).size === a.length, { message: 'repeated channel' })
    .optional(),
});
export type FcmTokenInput = z.infer<typeof FcmTokenInput>;
/** NOTIF-36 (design): the answer. */
export const FcmTokenAnswer = z.object({ result: z.literal('success') });
/** `GET /api/fcm/key`: the server's VAPID public key (the applicationServerKey to subscribe with). */
export const FcmKeyAnswer = z.object({ result: z.literal('success'), publicKey: z.string() });
export type FcmKeyAnswer = z.infer<typeof FcmKeyAnswer>;

/** The Web Push payload the service worker shows. */
export interface PushPayload {
  title: string;
  body: string;
  category: NotificationCategory;
  type: NotificationType;
  url: string | null;
  id: number;
}

/** NOTIF-37, NOTIF-38: local keys of the sound and per-channel message-notification choices. */
export const NOTIFICATION_LOCAL_KEYS = {
  sound: 'TicketNotificationSound',
  message: (channel: string) => `MessageNotification_${channel}`,
} as const;

/** The client says whether one of its tabs has focus (no Web Push while one has). */
export const FOCUS_REFRESH_MS = 60_000;

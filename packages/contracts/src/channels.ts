import { z } from 'zod';
import type { Channel } from './constants.js';
import { channelPlanWords } from './plans.js';

/**
 * Messaging channels (WhatsApp, Telegram, ...): an admin connects a provider account; what customers write
 * there becomes ticket messages, and the team's replies go back out on it. See docs/channels.md.
 */

/** The providers a connection can be made to, and the ticket channel each one's conversations are. */
export const CHANNEL_KINDS = ['whatsapp', 'messenger', 'instagram', 'telegram', 'line', 'sms', 'x'] as const;
export type ChannelKind = (typeof CHANNEL_KINDS)[number];
export const CHANNEL_OF_KIND: Record<ChannelKind, Channel> = {
  whatsapp: 'WHATSAPP',
  messenger: 'FB_PM',
  instagram: 'IG_PM',
  telegram: 'TELEGRAM',
  line: 'LINE_DM',
  sms: 'SMS',
  x: 'TW_DM',
};
/**
 * Every ticket channel a connection's conversations can be: a Facebook Page's messages and the comments on its
 * posts come through one webhook (Meta's app has one callback address per object), as do an Instagram
 * account's messages, comments and mentions, and an X account's DMs and mentions. The first is the kind's own
 * (`CHANNEL_OF_KIND`), which the plan is checked by.
 */
export const CHANNELS_OF_KIND: Record<ChannelKind, readonly Channel[]> = {
  whatsapp: ['WHATSAPP'],
  messenger: ['FB_PM', 'FB_PAGE_POST'],
  instagram: ['IG_PM', 'IG_POST', 'IG_MENTION'],
  telegram: ['TELEGRAM'],
  line: ['LINE_DM'],
  sms: ['SMS'],
  x: ['TW_DM', 'TW_MENTION'],
};
export const KIND_NAMES: Record<ChannelKind, string> = {
  whatsapp: 'WhatsApp Cloud API',
  messenger: 'Facebook Messenger',
  instagram: 'Instagram Direct',
  telegram: 'Telegram bot',
  line: 'LINE Official Account',
  sms: 'SMS (Twilio)',
  x: 'X (Twitter)',
};

/** Where a reply to a channel's customer is: on its way, taken by the provider, delivered, read, or refused. */
export const DELIVERY_STATES = ['sending', 'sent', 'delivered', 'read', 'failed'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** WhatsApp lets a business write freely only within 24 hours of the customer's last message. */
export const WHATSAPP_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * Meta's channels: webhooks proven by the `hub.*` handshake (the verify token typed into Meta's dashboard)
 * and `X-Hub-Signature-256`; a reply may leave only within 24 hours of the customer's last message.
 */
export const META_KINDS: readonly ChannelKind[] = ['whatsapp', 'messenger', 'instagram'];
/** The ticket channels of the Meta kinds, whose conversations have the 24-hour window. */
export const META_WINDOW_CHANNELS: readonly Channel[] = META_KINDS.map((k) => CHANNEL_OF_KIND[k]);
/** The provider kind of a ticket channel, when a connection makes it. */
export const kindOfChannel = (channel: string): ChannelKind | undefined =>
  CHANNEL_KINDS.find((k) => (CHANNELS_OF_KIND[k] as readonly string[]).includes(channel));
/** Comment threads under a post: an agent's reply answers the latest comment, publicly or (Facebook) privately. */
export const POST_CHANNELS: readonly Channel[] = ['FB_PAGE_POST', 'IG_POST', 'IG_MENTION', 'TW_MENTION'];

export const CHANNEL_STRINGS = {
  notConfigured:
    'Messaging channels need SECRETS_KEY on the server (32 random bytes in base64) to keep their tokens encrypted. Ask your administrator to set it and restart.',
  notFound: 'Channel not found.',
  unknownDepartment: 'Unknown department.',
  /** PLAN-20..22: the plan does not include this channel. */
  notOnPlan: (plan: number, channel: Channel, name: string) => channelPlanWords(plan, channel, name),
  nameRequired: 'A name is required.',
  tokenRequired: 'The access token is required.',
  appSecretRequired: 'The app secret is required.',
  phoneNumberIdRequired: 'The phone number ID is required.',
  phoneNumberIdShape: 'The phone number ID is the digits Meta shows for the number (WhatsApp Manager, API Setup).',
  pageIdRequired: 'The Page ID is required.',
  pageIdShape: 'The Page ID is the digits Meta shows for the Page (Page settings, About, Page transparency).',
  igAccountIdRequired: 'The Instagram account ID is required.',
  igAccountIdShape:
    'The Instagram account ID is the digits of the professional account linked to the Page (Meta Business Suite, Settings).',
  pageTokenRequired: 'The Page access token is required.',
  botTokenRequired: 'The bot token is required.',
  xUserIdRequired: 'The account\u2019s user ID is required.',
  xUserIdShape: 'The user ID is the digits X gives the account (Developer Portal, your app\u2019s Keys and tokens).',
  consumerKeyRequired: 'The API key (consumer key) is required.',
  consumerSecretRequired: 'The API key secret (consumer secret) is required.',
  accessTokenSecretRequired: 'The access token secret is required.',
  /** The X connection's test: the tokens are of another account than the user ID given. */
  xOtherAccount: (username: string, id: string) =>
    `These tokens are of @${username} (user ID ${id}), not of the user ID given. Check the user ID.`,
  /** The first message of a ticket of comments: the post they are under (text and link). */
  postContext: (text: string, link: string) =>
    `Post: ${text ? `\u201c${text.slice(0, 1000)}\u201d` : '(no text)'}${link ? `\n${link}` : ''}`,
  /** A Facebook post's comment answered by Messenger (a private reply) instead of under the post. */
  replyPrivately: 'Reply privately (Messenger)',
  replyPrivatelyHint: 'The commenter gets it as a Messenger message; nothing shows under the post.',
  replyPublicly: 'Reply under the post',
  notPostTicket: 'Only a comment on a Facebook post can be answered privately.',
  noCommentToAnswer: 'There is no customer comment in this conversation to answer.',
  botTokenShape: 'A Telegram bot token looks like 123456789:AA... (from @BotFather).',
  channelSecretRequired: 'The channel secret is required (LINE Developers Console, Basic settings).',
  channelSecretShape: 'A LINE channel secret is 32 letters and digits (LINE Developers Console, Basic settings).',
  channelAccessTokenRequired: 'The channel access token is required (LINE Developers Console, Messaging API).',
  accountSidRequired: 'The account SID is required.',
  accountSidShape:
    'An account SID is AC followed by 32 letters and digits (Twilio Console, Account Info), or a compatible provider\u2019s project ID.',
  authTokenRequired: 'The auth token is required.',
  authTokenShape:
    'The auth token is the 32 letters and digits shown beside the account SID (Twilio Console, Account Info).',
  fromNumberRequired: 'The number to send from is required.',
  fromNumberShape: 'Write the number to send from with its country code, like +1 555 010 0100.',
  /** The SMS connection's test: the number to send from is not one of the provider account's. */
  notAccountNumber: (number: string) =>
    `${number} is not a number of this account, so replies could not be sent from it. Check the number to send from.`,
  /** A reply longer than the provider takes in one send. */
  tooLong: (max: number) => `This reply is longer than the ${max.toLocaleString('en')} characters the provider takes.`,
  /** An SMS reply to a customer whose number is not one an SMS can go to (a short code, a sender name). */
  badSmsNumber: (peer: string) =>
    `${peer} is not a phone number an SMS can be sent to, so this reply cannot leave. Answer the customer another way.`,
  kindFixed: 'A channel cannot change its provider: remove it and add it again.',
  cannotDecrypt: 'The stored token cannot be read with this server\u2019s SECRETS_KEY: enter it again.',
  badSignature: 'The webhook signature does not match.',
  badPayload: 'The webhook payload is not one this channel understands.',
  /** Shown on a reply that the provider refused, with its own words. */
  failed: (words: string) => `Failed: ${words}`,
  sending: 'Sending\u2026',
  sent: 'Sent',
  delivered: 'Delivered',
  read: 'Read',
  retry: 'Retry',
  notFailed: 'Only a reply that failed can be sent again.',
  noConnection: 'This conversation\u2019s channel was removed, so the reply cannot leave.',
  notChannelTicket: 'This conversation is not on a connected WhatsApp number.',
  /** WhatsApp's customer-service window is closed: only an approved template may start the conversation again. */
  windowClosed:
    'The customer last wrote more than 24 hours ago, so WhatsApp only allows an approved template message now.',
  /** Messenger's and Instagram's standard messaging window is closed (message tags are not built). */
  metaWindowClosed: (name: string) =>
    `The customer last wrote more than 24 hours ago, so ${name} does not allow a reply now. It can leave once they write again.`,
  templateRequired: 'Choose a template.',
  /** The text stored for a template message the agent sent. */
  templateSent: (name: string, language: string) => `Template message: ${name} (${language})`,
  templateShape: 'A template name is lower-case letters, digits and underscores.',
  languageShape: 'A language code looks like en or en_US.',
  interrupted: 'The server stopped while this reply was being sent: whether it left is not known.',
  testOk: (name: string) => `The provider accepted the token${name ? ` (${name})` : ''}.`,
  /** The connection form: where the provider must send its webhooks, once PUBLIC_URL is set. */
  noPublicUrl: 'PUBLIC_URL is not set, so this server cannot give the provider a webhook address.',
  location: (name: string, lat: number, lng: number) =>
    `${name ? `${name}: ` : ''}https://www.openstreetmap.org/?mlat=${lat}&mlon=${lng}`,
  unsupported: (type: string) => `[A ${type} message, which Parley cannot show yet]`,
} as const;

const trimmed = (max: number, required: string) => z.string().trim().min(1, required).max(max);
/** Empty or missing on a change: keep the stored secret. */
const secret = z.string().trim().max(4000).optional();

const WhatsAppSettings = z.object({
  kind: z.literal('whatsapp'),
  phoneNumberId: z
    .string()
    .trim()
    .min(1, CHANNEL_STRINGS.phoneNumberIdRequired)
    .max(40)
    .regex(/^\d+$/, CHANNEL_STRINGS.phoneNumberIdShape),
  /** The display number, for people (e.g. +1 555 0100); optional. */
  displayNumber: z.string().trim().max(40).optional(),
  accessToken: secret,
  appSecret: secret,
});
const metaId = (required: string, shape: string) => z.string().trim().min(1, required).max(40).regex(/^\d+$/, shape);
/** Facebook Messenger: a Page, its Page access token, and the app's secret that signs the webhooks. */
const MessengerSettings = z.object({
  kind: z.literal('messenger'),
  pageId: metaId(CHANNEL_STRINGS.pageIdRequired, CHANNEL_STRINGS.pageIdShape),
  accessToken: secret,
  appSecret: secret,
});
/** Instagram Direct: the professional account linked to a Page, that Page's access token, the app secret. */
const InstagramSettings = z.object({
  kind: z.literal('instagram'),
  igAccountId: metaId(CHANNEL_STRINGS.igAccountIdRequired, CHANNEL_STRINGS.igAccountIdShape),
  accessToken: secret,
  appSecret: secret,
});
/** LINE: both from the LINE Developers Console; the channel secret signs the webhooks. */
const LineSettings = z.object({
  kind: z.literal('line'),
  channelSecret: z
    .string()
    .trim()
    .max(64)
    .regex(/^[A-Za-z0-9]{32}$/, CHANNEL_STRINGS.channelSecretShape)
    .optional()
    .or(z.literal('')),
  channelAccessToken: secret,
});
/** SMS through a Twilio-compatible Messages API (Twilio's account SID, or a compatible provider's UUID project ID); the auth token signs the webhooks. */
const SmsSettings = z.object({
  kind: z.literal('sms'),
  accountSid: z
    .string()
    .trim()
    .min(1, CHANNEL_STRINGS.accountSidRequired)
    .max(64)
    .regex(
      /^(AC[0-9a-fA-F]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/,
      CHANNEL_STRINGS.accountSidShape,
    ),
  /** The number replies are sent from (E.164 once saved). */
  fromNumber: z
    .string()
    .trim()
    .min(1, CHANNEL_STRINGS.fromNumberRequired)
    .max(30)
    .regex(/^\+[0-9 ().-]{6,25}$/, CHANNEL_STRINGS.fromNumberShape),
  authToken: z
    .string()
    .trim()
    .max(100)
    .regex(/^[A-Za-z0-9_-]{16,100}$/, CHANNEL_STRINGS.authTokenShape)
    .optional()
    .or(z.literal('')),
});
const TelegramSettings = z.object({
  kind: z.literal('telegram'),
  botToken: z
    .string()
    .trim()
    .max(200)
    .regex(/^\d{3,20}:[A-Za-z0-9_-]{20,120}$/, CHANNEL_STRINGS.botTokenShape)
    .optional()
    .or(z.literal('')),
});

/**
 * X (Twitter): the account's numeric user ID (its own events are skipped, another account's webhooks dropped),
 * the app's API key and secret (the secret signs the webhooks and the CRC answer), and the account's access
 * token and secret (OAuth 1.0a user context, which DMs and replies need).
 */
const XSettings = z.object({
  kind: z.literal('x'),
  userId: z
    .string()
    .trim()
    .min(1, CHANNEL_STRINGS.xUserIdRequired)
    .max(25)
    .regex(/^\d+$/, CHANNEL_STRINGS.xUserIdShape),
  consumerKey: secret,
  consumerSecret: secret,
  accessToken: secret,
  accessTokenSecret: secret,
});

/** `POST /api/channels` and `PUT /api/channels/:id`. */
export const ChannelInput = z.object({
  name: trimmed(100, CHANNEL_STRINGS.nameRequired),
  departmentId: z.number().int().positive().nullable().optional(),
  active: z.boolean().optional(),
  settings: z.discriminatedUnion('kind', [
    WhatsAppSettings,
    MessengerSettings,
    InstagramSettings,
    TelegramSettings,
    LineSettings,
    SmsSettings,
    XSettings,
  ]),
});
export type ChannelInput = z.infer<typeof ChannelInput>;

export const ChannelIdParams = z.object({ id: z.coerce.number().int().positive() });

/** A connection as the admin sees it: never a token or secret, only whether one is stored. */
export const ChannelView = z.object({
  id: z.number(),
  kind: z.enum(CHANNEL_KINDS),
  channel: z.string(),
  name: z.string(),
  departmentId: z.number().nullable(),
  active: z.boolean(),
  /**
   * WhatsApp: phoneNumberId and displayNumber; Messenger: pageId; Instagram:
   * igAccountId; SMS: accountSid and fromNumber; Telegram and LINE: none.
   */
  settings: z.record(z.string(), z.string()),
  /** The token calls are made with is stored (WhatsApp and LINE access token, Telegram bot token, SMS auth token). */
  hasToken: z.boolean(),
  /** The secret webhooks are signed with is stored (WhatsApp app secret, LINE channel secret; SMS: its auth token). */
  hasAppSecret: z.boolean(),
  /** Where the provider posts (null without PUBLIC_URL), and Meta's verify token for its handshake. */
  webhookUrl: z.string().nullable(),
  verifyToken: z.string().nullable(),
  lastError: z.string().nullable(),
  lastErrorAt: z.number().nullable(),
  lastEventAt: z.number().nullable(),
});
export type ChannelView = z.infer<typeof ChannelView>;

export const ChannelListAnswer = z.object({
  result: z.literal('success'),
  configured: z.boolean(),
  description: z.string().optional(),
  /** The kinds the plan allows, for the form. */
  allowed: z.array(z.enum(CHANNEL_KINDS)),
  /**
   * PLAN-20..22: the kinds the plan does not include, each with what connecting it would answer (the plan,
   * the channel and the plan that has it), so Settings says so instead of offering a connect that fails.
   */
  notOnPlan: z.array(z.object({ kind: z.enum(CHANNEL_KINDS), description: z.string() })),
  data: z.array(ChannelView),
});
export type ChannelListAnswer = z.infer<typeof ChannelListAnswer>;
export const ChannelAnswer = z.object({ result: z.literal('success'), data: ChannelView });
export type ChannelAnswer = z.infer<typeof ChannelAnswer>;
export const ChannelTestAnswer = z.object({
  result: z.literal('success'),
  data: z.object({ ok: z.boolean(), response: z.string() }),
});
export type ChannelTestAnswer = z.infer<typeof ChannelTestAnswer>;

/** A reply's delivery on its channel, on the message (`delivery`) and as the socket event `messageDelivery`. */
export const MessageDelivery = z.object({
  state: z.enum(DELIVERY_STATES),
  /** The provider's words when it failed. */
  error: z.string().optional(),
});
export type MessageDelivery = z.infer<typeof MessageDelivery>;
export const MessageDeliveryEvent = z.object({
  ticketId: z.number(),
  messageId: z.number(),
  state: z.enum(DELIVERY_STATES),
  error: z.string().nullable(),
});
export type MessageDeliveryEvent = z.infer<typeof MessageDeliveryEvent>;

/** `POST /api/channels/message/retry`: a failed channel reply sent again. */
export const RetryDeliveryInput = z.object({ id: z.number().int().positive() });
export const RetryDeliveryAnswer = z.object({ result: z.literal('success'), data: MessageDeliveryEvent });
export type RetryDeliveryAnswer = z.infer<typeof RetryDeliveryAnswer>;

/** `POST /api/channels/template`: a WhatsApp template message to a ticket's customer (the window closed). */
export const SendTemplateInput = z.object({
  ticketId: z.number().int().positive(),
  template: z
    .string()
    .trim()
    .min(1, CHANNEL_STRINGS.templateRequired)
    .max(512)
    .regex(/^[a-z0-9_]+$/, CHANNEL_STRINGS.templateShape),
  language: z
    .string()
    .trim()
    .max(15)
    .regex(/^[a-z]{2,3}(_[A-Z]{2})?$/, CHANNEL_STRINGS.languageShape),
});
export type SendTemplateInput = z.infer<typeof SendTemplateInput>;

/** `POST /api/channels/private-reply`: an agent answers a Facebook post's latest comment by Messenger. */
export const PrivateReplyInput = z.object({
  ticketId: z.number().int().positive(),
  message: z.string().trim().min(1, 'Write the message first.').max(2000),
});
export type PrivateReplyInput = z.infer<typeof PrivateReplyInput>;

/** What the conversation pane needs to know of a channel ticket: whether Meta's 24-hour window is open. */
export const ChannelWindowAnswer = z.object({
  result: z.literal('success'),
  data: z.object({ open: z.boolean(), closesAt: z.number().nullable() }),
});
export type ChannelWindowAnswer = z.infer<typeof ChannelWindowAnswer>;

/** The `/sms` screen's words. */
export const SMS_STRINGS = {
  title: 'SMS',
  intro: 'Text a customer from the team\u2019s SMS number. Their answers come back to the same conversation.',
  to: 'To',
  toHint: 'With the country code, e.g. +1 555 010 0100.',
  message: 'Message',
  send: 'Send SMS',
  threads: 'Conversations',
  empty: 'No SMS conversations yet.',
  notConnected: 'No SMS number is connected. An admin connects one in Settings, Channels.',
  badNumber: 'Write a mobile number with its country code, like +1 555 010 0100.',
  title_of: (number: string) => `SMS with ${number}`,
  sent: 'Sent. The conversation is open.',
  /** The system message of a done SMS conversation an agent writes to again. */
  reopened: 'An SMS was sent to the customer: the conversation is open again.',
} as const;

/** `POST /api/sms/send`: a text to a number, in its conversation (started when there is none). */
export const SmsSendInput = z.object({
  to: z.string().trim().min(1, SMS_STRINGS.badNumber).max(40),
  message: z.string().trim().min(1, 'Write the message first.').max(1600),
});
export type SmsSendInput = z.infer<typeof SmsSendInput>;
export const SmsSendAnswer = z.object({ result: z.literal('success'), data: z.object({ ticketId: z.number() }) });
export type SmsSendAnswer = z.infer<typeof SmsSendAnswer>;

/** `GET /api/sms/threads`: the account's SMS conversations, newest activity first. */
export const SmsThreadsAnswer = z.object({
  result: z.literal('success'),
  /** Whether an active SMS number is connected (sending needs one). */
  connected: z.boolean(),
  data: z.array(
    z.object({
      ticketId: z.number(),
      ticketNumber: z.number(),
      name: z.string(),
      number: z.string(),
      updatedAt: z.number(),
      closed: z.number(),
    }),
  ),
});
export type SmsThreadsAnswer = z.infer<typeof SmsThreadsAnswer>;

import type { ChannelInput, ChannelKind, ChannelView } from '@parley/contracts';

/** A connection in the form: a new one has no id yet; secrets typed now ('' keeps the stored one). */
export interface ChannelDraft {
  id?: number;
  kind: ChannelKind;
  name: string;
  departmentId: number | null;
  active: boolean;
  /** WhatsApp. */
  phoneNumberId: string;
  displayNumber: string;
  /** WhatsApp's access token; Messenger's and Instagram's Page access token. */
  accessToken: string;
  /** The Meta app's secret (WhatsApp, Messenger, Instagram). */
  appSecret: string;
  /** Messenger: the Page. */
  pageId: string;
  /** Instagram: the professional account linked to the Page. */
  igAccountId: string;
  /** Telegram. */
  botToken: string;
  /** LINE. */
  channelSecret: string;
  channelAccessToken: string;
  /** SMS (Twilio-compatible). */
  accountSid: string;
  fromNumber: string;
  authToken: string;
  /** X: the account's user ID, the app's keys and the account's access token (OAuth 1.0a). */
  userId: string;
  consumerKey: string;
  consumerSecret: string;
  accessTokenSecret: string;
  /**
   * Whether the server holds the token (WhatsApp's access token, the bot token, LINE's channel access token,
   * the SMS auth token) and the webhook secret (WhatsApp's app secret, LINE's channel secret).
   */
  hasToken: boolean;
  hasAppSecret: boolean;
}

/** A new connection of the first kind the plan allows. */
export const blankChannel = (kind: ChannelKind): ChannelDraft => ({
  kind,
  name: '',
  departmentId: null,
  active: true,
  phoneNumberId: '',
  displayNumber: '',
  accessToken: '',
  appSecret: '',
  pageId: '',
  igAccountId: '',
  botToken: '',
  channelSecret: '',
  channelAccessToken: '',
  accountSid: '',
  fromNumber: '',
  authToken: '',
  userId: '',
  consumerKey: '',
  consumerSecret: '',
  accessTokenSecret: '',
  hasToken: false,
  hasAppSecret: false,
});

/** A stored connection in the form: never a secret, only whether one is stored. */
export const draftOf = (c: ChannelView): ChannelDraft => ({
  ...blankChannel(c.kind),
  id: c.id,
  name: c.name,
  departmentId: c.departmentId,
  active: c.active,
  phoneNumberId: c.settings.phoneNumberId ?? '',
  displayNumber: c.settings.displayNumber ?? '',
  pageId: c.settings.pageId ?? '',
  igAccountId: c.settings.igAccountId ?? '',
  accountSid: c.settings.accountSid ?? '',
  fromNumber: c.settings.fromNumber ?? '',
  userId: c.settings.userId ?? '',
  hasToken: c.hasToken,
  hasAppSecret: c.hasAppSecret,
});

/**
 * The body of a save. An empty secret is left out, so the server keeps the stored one; everything else is
 * checked by the server, whose words the form shows.
 */
export function channelBody(d: ChannelDraft): ChannelInput {
  /** A secret typed now, under its name; nothing when left empty. */
  const secret = (name: string, v: string) => (v.trim() ? { [name]: v.trim() } : {});
  const base = { name: d.name, departmentId: d.departmentId, active: d.active };
  switch (d.kind) {
    case 'messenger':
      return {
        ...base,
        settings: {
          kind: 'messenger',
          pageId: d.pageId.trim(),
          ...secret('accessToken', d.accessToken),
          ...secret('appSecret', d.appSecret),
        },
      };
    case 'instagram':
      return {
        ...base,
        settings: {
          kind: 'instagram',
          igAccountId: d.igAccountId.trim(),
          ...secret('accessToken', d.accessToken),
          ...secret('appSecret', d.appSecret),
        },
      };
    case 'telegram':
      return { ...base, settings: { kind: 'telegram', ...secret('botToken', d.botToken) } };
    case 'line':
      return {
        ...base,
        settings: {
          kind: 'line',
          ...secret('channelSecret', d.channelSecret),
          ...secret('channelAccessToken', d.channelAccessToken),
        },
      };
    case 'sms':
      return {
        ...base,
        settings: {
          kind: 'sms',
          accountSid: d.accountSid.trim(),
          fromNumber: d.fromNumber.trim(),
          ...secret('authToken', d.authToken),
        },
      };
    case 'x':
      return {
        ...base,
        settings: {
          kind: 'x',
          userId: d.userId.trim(),
          ...secret('consumerKey', d.consumerKey),
          ...secret('consumerSecret', d.consumerSecret),
          ...secret('accessToken', d.accessToken),
          ...secret('accessTokenSecret', d.accessTokenSecret),
        },
      };
    default:
      return {
        ...base,
        settings: {
          kind: 'whatsapp',
          phoneNumberId: d.phoneNumberId.trim(),
          ...(d.displayNumber.trim() ? { displayNumber: d.displayNumber.trim() } : {}),
          ...secret('accessToken', d.accessToken),
          ...secret('appSecret', d.appSecret),
        },
      };
  }
}

/** The body that turns a stored connection on or off, keeping everything else (secrets included). */
export const activeBody = (c: ChannelView, active: boolean): ChannelInput => channelBody({ ...draftOf(c), active });

/**
 * What the list names a connection by: WhatsApp's display number (or its ID), the Messenger Page's ID, the
 * Instagram account's ID, the SMS number replies are sent from, a Telegram bot's @username when known; LINE
 * keeps nothing to show.
 */
export function channelAddress(c: ChannelView): string {
  if (c.kind === 'whatsapp') return c.settings.displayNumber || c.settings.phoneNumberId || '';
  if (c.kind === 'messenger') return c.settings.pageId ?? '';
  if (c.kind === 'instagram') return c.settings.igAccountId ?? '';
  if (c.kind === 'sms') return c.settings.fromNumber ?? '';
  if (c.kind === 'x') return c.settings.userId ?? '';
  const user = c.kind === 'telegram' ? (c.settings.username ?? '') : '';
  return user ? `@${user.replace(/^@/, '')}` : '';
}

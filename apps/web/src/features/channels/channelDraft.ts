import type { ChannelInput, ChannelKind, ChannelView } from '@parley/contracts';

/** A connection in the form: a new one has no id yet; secrets typed now ('' keeps the stored one). */
export interface ChannelDraft {
  id?: number;
  kind: ChannelKind;
  name: string;
  departmentId: number | null;
  active: boolean;
  phoneNumberId: string;
  displayNumber: string;
  accessToken: string;
  appSecret: string;
  botToken: string;
  /** Whether the server holds a token (access token or bot token) and WhatsApp's app secret. */
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
  botToken: '',
  hasToken: false,
  hasAppSecret: false,
});

/** A stored connection in the form: never a secret, only whether one is stored. */
export const draftOf = (c: ChannelView): ChannelDraft => ({
  id: c.id,
  kind: c.kind,
  name: c.name,
  departmentId: c.departmentId,
  active: c.active,
  phoneNumberId: c.settings.phoneNumberId ?? '',
  displayNumber: c.settings.displayNumber ?? '',
  accessToken: '',
  appSecret: '',
  botToken: '',
  hasToken: c.hasToken,
  hasAppSecret: c.hasAppSecret,
});

/**
 * The body of a save. An empty secret is left out, so the server keeps the stored one; everything else is
 * checked by the server, whose words the form shows.
 */
export function channelBody(d: ChannelDraft): ChannelInput {
  const secret = (v: string) => (v.trim() ? { value: v.trim() } : null);
  const base = { name: d.name, departmentId: d.departmentId, active: d.active };
  if (d.kind === 'telegram') {
    const token = secret(d.botToken);
    return { ...base, settings: { kind: 'telegram', ...(token ? { botToken: token.value } : {}) } };
  }
  const access = secret(d.accessToken);
  const app = secret(d.appSecret);
  return {
    ...base,
    settings: {
      kind: 'whatsapp',
      phoneNumberId: d.phoneNumberId.trim(),
      ...(d.displayNumber.trim() ? { displayNumber: d.displayNumber.trim() } : {}),
      ...(access ? { accessToken: access.value } : {}),
      ...(app ? { appSecret: app.value } : {}),
    },
  };
}

/** The body that turns a stored connection on or off, keeping everything else (secrets included). */
export const activeBody = (c: ChannelView, active: boolean): ChannelInput => channelBody({ ...draftOf(c), active });

/** What the list names a connection by: WhatsApp's display number (or its ID), a Telegram bot's @username. */
export function channelAddress(c: ChannelView): string {
  if (c.kind === 'whatsapp') return c.settings.displayNumber || c.settings.phoneNumberId || '';
  const user = c.settings.username ?? '';
  return user ? `@${user.replace(/^@/, '')}` : '';
}

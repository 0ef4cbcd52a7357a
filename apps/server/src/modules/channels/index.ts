/** Messaging channels: provider connections, their webhooks in and replies out (see docs/channels.md). */

/** One provider's webhooks and sends behind one interface. */
export { type ChannelAdapter, ProviderError } from './adapter.js';
export { lineAdapter } from './adapters/line.js';
export { instagramAdapter, messengerAdapter } from './adapters/messenger.js';
export { smsAdapter } from './adapters/sms.js';
export { telegramAdapter } from './adapters/telegram.js';
export { whatsappAdapter } from './adapters/whatsapp.js';
export { xAdapter } from './adapters/x.js';
/** HTTP routes: admins' connections, the providers' webhooks, agents' retry and templates. */
export { channelRoutes } from './channels.routes.js';
/** The relay's reader of webhooks taken. */
export { storeWebhooks, webhookCommitter } from './inbound.js';
/** The relay's sender of replies, and the sweep of sends a crash cut short. */
export { failInterruptedChannelReplies, sendChannelReplies } from './outbound.js';

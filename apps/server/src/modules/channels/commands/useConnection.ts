import {
  CHANNEL_STRINGS,
  MESSAGE_STRINGS,
  META_WINDOW_CHANNELS,
  type PrivateReplyInput,
  type SendTemplateInput,
  WHATSAPP_WINDOW_MS,
} from '@parley/contracts';
import type { AuthContext } from '../../../platform/auth/sessions.js';
import { conflict, forbidden, notFound } from '../../../platform/http/errors.js';
import { runCommand } from '../../../platform/outbox/index.js';
import { postMessage } from '../../messages/index.js';
import { ProviderError } from '../adapter.js';
import { registerTelegramWebhook } from '../adapters/telegram.js';
import type { ChannelRouteDeps } from '../channels.routes.js';
import { findConnection, openConnection, recordConnectionError, webhookUrl } from '../connections.js';
import { windowOpen } from '../outbound.js';

/**
 * Admin: tries the connection's token with the provider and answers its words. A Telegram bot is also told
 * where to post its updates (when the server has a PUBLIC_URL). The outcome is kept as the row's last error.
 */
export async function testConnection(deps: ChannelRouteDeps, auth: AuthContext, id: number) {
  if (!deps.secrets) throw conflict(CHANNEL_STRINGS.notConfigured);
  const row = await findConnection(deps.db, auth.accountId, id);
  const adapter = row ? deps.adapters.get(row.kind) : undefined;
  if (!row || !adapter) throw notFound(CHANNEL_STRINGS.notFound);
  const c = openConnection(row, deps.secrets);
  if (!c) return { ok: false, response: CHANNEL_STRINGS.cannotDecrypt };
  try {
    const who = await adapter.test(c);
    const url = webhookUrl(deps.publicUrl, row.webhook_key);
    if (c.kind === 'telegram' && url) await registerTelegramWebhook(deps.telegramApiUrl, c, url);
    await recordConnectionError(deps.db, c, null);
    return { ok: true, response: CHANNEL_STRINGS.testOk(who) };
  } catch (err) {
    const words = err instanceof ProviderError ? err.message : String((err as Error).message ?? err);
    await recordConnectionError(deps.db, c, words);
    return { ok: false, response: words };
  }
}

/** A ticket of the account the user may read, with what a channel reply needs; 404/403 otherwise. */
async function readableTicket(deps: ChannelRouteDeps, auth: AuthContext, ticketId: number) {
  const t = await deps.db
    .selectFrom('tickets')
    .select(['id', 'channel', 'channel_connection_id', 'last_message_at'])
    .where('account_id', '=', auth.accountId)
    .where('id', '=', ticketId)
    .executeTakeFirst();
  if (!t) throw notFound(MESSAGE_STRINGS.ticketNotFound);
  if (
    !(await deps.conversations.canRead(
      deps.db,
      { id: ticketId, accountId: auth.accountId, channel: t.channel },
      auth.userId,
    ))
  )
    throw forbidden(MESSAGE_STRINGS.cannotRead);
  return t;
}

/** Whether Meta's 24-hour window (WhatsApp, Messenger, Instagram) is open for a ticket (always elsewhere). */
export async function ticketWindow(deps: ChannelRouteDeps, auth: AuthContext, ticketId: number) {
  const t = await readableTicket(deps, auth, ticketId);
  if (!META_WINDOW_CHANNELS.includes(t.channel as never) || t.channel_connection_id === null)
    return { open: true, closesAt: null };
  const last = Number(t.last_message_at);
  return { open: windowOpen(last), closesAt: last > 0 ? last + WHATSAPP_WINDOW_MS : null };
}

/**
 * An approved WhatsApp template to the ticket's customer: stored as the agent's message (naming the
 * template) and sent like any reply, as a template. Only on a ticket of a connected WhatsApp number.
 */
export async function sendTemplate(deps: ChannelRouteDeps, auth: AuthContext, input: SendTemplateInput) {
  const t = await readableTicket(deps, auth, input.ticketId);
  if (t.channel !== 'WHATSAPP' || t.channel_connection_id === null) throw conflict(CHANNEL_STRINGS.notChannelTicket);
  await runCommand(deps.db, (trx) =>
    postMessage(trx, deps.conversations, {
      accountId: auth.accountId,
      ticketId: input.ticketId,
      sender: auth.username,
      senderName: auth.name || auth.username,
      type: 'text',
      message: CHANNEL_STRINGS.templateSent(input.template, input.language),
      fromCustomer: false,
      channel: t.channel,
      channelTemplate: { name: input.template, language: input.language },
    }),
  );
}

/**
 * A Facebook post's latest comment answered privately: the agent's message, sent by Messenger's private reply
 * (`recipient.comment_id`) instead of under the post. Only on a ticket of a connected Page's post.
 */
export async function sendPrivateReply(deps: ChannelRouteDeps, auth: AuthContext, input: PrivateReplyInput) {
  const t = await readableTicket(deps, auth, input.ticketId);
  if (t.channel !== 'FB_PAGE_POST' || t.channel_connection_id === null) throw conflict(CHANNEL_STRINGS.notPostTicket);
  await runCommand(deps.db, (trx) =>
    postMessage(trx, deps.conversations, {
      accountId: auth.accountId,
      ticketId: input.ticketId,
      sender: auth.username,
      senderName: auth.name || auth.username,
      type: 'text',
      message: input.message,
      fromCustomer: false,
      channel: t.channel,
      channelPrivate: true,
    }),
  );
}

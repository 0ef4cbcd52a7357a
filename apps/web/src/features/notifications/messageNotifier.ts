import {
  assigneeList,
  ENCRYPTION_STRINGS,
  isLiveChatChannel,
  looksLikeEnvelope,
  type NewMessageEvent,
  type TicketUpdated,
} from '@parley/contracts';
import { realtime } from '../../lib/realtime';
import { playNotification } from '../../lib/sound';
import { messagePref, prefChannel, soundPref } from './prefs';
import { NOTIFICATION_SETTINGS_STRINGS as S } from './strings';

/** Senders that are not people. */
const NOT_PEOPLE = new Set(['server', 'translatebot', 'bot', 'chatbot']);
/** A `newMessage` waits this long for the `updateTicket` the server sends right after it (same transaction). */
const PAIR_MS = 5_000;
/** Older messages (a catch-up after a reconnect) do not raise a notification. */
const FRESH_MS = 60_000;

export interface MessageNotice {
  title: string;
  body: string;
  tag: string;
  url: string;
}

/**
 * NOTIF-37 (design): whether a message, now that its ticket is known, deserves a browser notification: not
 * mine, not a system message, in a ticket assigned to me or to nobody, not an internal Workspace chat, on a
 * channel whose MessageNotification choice is on.
 */
export function noticeFor(
  m: NewMessageEvent,
  t: TicketUpdated,
  me: string,
  now = Date.now(),
  channelOn: (channel: string) => boolean = messagePref.get,
): MessageNotice | null {
  if (m.type === 'system' || NOT_PEOPLE.has(m.sender) || m.sender.toLowerCase() === me.toLowerCase()) return null;
  if (t.channel === 'chat' || now - m.created_at > FRESH_MS) return null;
  const assignees = assigneeList(t.assignee).map((u) => u.toLowerCase());
  if (assignees.length > 0 && !assignees.includes(me.toLowerCase())) return null;
  if (!channelOn(prefChannel(t.channel))) return null;
  const livechat = isLiveChatChannel(t.channel);
  return {
    title: S.messageTitle(m.senderName || m.sender, t.ticket_number),
    body: S.messageBody(
      looksLikeEnvelope(m.message) ? ENCRYPTION_STRINGS.notificationBody : m.message,
      m.files.map((f) => f.fileName),
    ),
    // The same tag as the server's Web Push of this message: one notification if both arrive.
    tag: `message-${m.id}`,
    url: `${livechat ? '/livechat' : '/ticket'}?number=${t.ticket_number}`,
  };
}

/** The service worker's registration once it is active (it may still be starting), or undefined after 2 s. */
function activeWorker(): Promise<ServiceWorkerRegistration | undefined> {
  if (!('serviceWorker' in navigator)) return Promise.resolve(undefined);
  return Promise.race([
    navigator.serviceWorker.ready,
    new Promise<undefined>((resolve) => window.setTimeout(() => resolve(undefined), 2_000)),
  ]);
}

async function show(n: MessageNotice): Promise<void> {
  if (typeof Notification === 'undefined' || Notification.permission !== 'granted') return;
  const reg = await activeWorker();
  // A persistent notification through the service worker (its click opens the ticket even after this tab
  // closes); a page notification while the worker is not active yet.
  if (reg?.active) {
    await reg.showNotification(n.title, { body: n.body, tag: n.tag, data: { url: n.url } });
    return;
  }
  const note = new Notification(n.title, { body: n.body, tag: n.tag });
  note.onclick = () => {
    window.focus();
    window.location.assign(n.url);
  };
}

/**
 * NOTIF-37: while this tab is hidden, a new message (see `noticeFor`) shows a browser notification, and plays
 * the notification sound when TicketNotificationSound is yes. The message's ticket (channel, assignees) comes
 * with the `updateTicket` that follows each `newMessage`. Returns the unsubscribe.
 */
export function watchMessages(me: () => string): () => void {
  const pending = new Map<number, { m: NewMessageEvent; at: number }>();
  const offMessage = realtime.on('newMessage', (m) => {
    if (document.visibilityState !== 'hidden') return;
    const now = Date.now();
    for (const [k, v] of pending) if (now - v.at > PAIR_MS) pending.delete(k);
    pending.set(m.ticketId, { m, at: now });
  });
  const offTicket = realtime.on('updateTicket', (t) => {
    const p = pending.get(t.id);
    if (!p) return;
    pending.delete(t.id);
    const n = noticeFor(p.m, t, me());
    if (!n) return;
    void show(n).catch(() => undefined);
    if (soundPref.get()) void playNotification();
  });
  return () => {
    offMessage();
    offTicket();
  };
}

import { FOCUS_REFRESH_MS, PushSubscriptionJson } from '@parley/contracts';
import { realtime } from '../../lib/realtime';
import { notificationsApi } from './api';
import { channelsOff } from './prefs';

/** Sends this tab's focus to the server (no Web Push while a tab of the user has focus); repeated each minute. */
export function reportFocus(): () => void {
  const send = () => {
    const socket = (realtime as unknown as { socket?: { connected: boolean; emit(n: string, v: boolean): void } })
      .socket;
    if (socket?.connected) socket.emit('notificationFocus', document.hasFocus());
  };
  const offState = realtime.onState((connected) => connected && send());
  window.addEventListener('focus', send);
  window.addEventListener('blur', send);
  const timer = window.setInterval(send, FOCUS_REFRESH_MS);
  send();
  return () => {
    offState();
    window.removeEventListener('focus', send);
    window.removeEventListener('blur', send);
    window.clearInterval(timer);
  };
}

const keyBytes = (b64url: string) => {
  const s = atob(b64url.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(s, (c) => c.charCodeAt(0));
};

/**
 * NOTIF-34, NOTIF-35: once the browser allows notifications, registers the service worker, subscribes with
 * the server's VAPID key and sends the subscription with the channels turned off here (NOTIF-37, NOTIF-38:
 * the server sends no push of a new message on them). Silent when unsupported (or, like headless browsers,
 * without a push service).
 *
 * Registrations run one at a time, in the order asked (the bell registers on load while the settings card
 * may be sending a changed choice): two in flight could land out of order and leave stale choices stored.
 */
export function registerWebPush(): Promise<boolean> {
  return enqueue(registerNow);
}

function enqueue(job: () => Promise<boolean>): Promise<boolean> {
  const next = queue.then(job);
  queue = next.catch(() => false);
  return next;
}

let queue: Promise<unknown> = Promise.resolve();

async function registerNow(): Promise<boolean> {
  try {
    if (!('serviceWorker' in navigator) || !('PushManager' in window)) return false;
    if (typeof Notification === 'undefined' || Notification.permission !== 'granted') return false;
    const reg = await navigator.serviceWorker.register('/sw.js');
    const { publicKey } = await notificationsApi.pushKey();
    const sub =
      (await reg.pushManager.getSubscription()) ??
      (await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(publicKey) }));
    const json = PushSubscriptionJson.safeParse(sub.toJSON());
    if (!json.success) return false;
    // Read last, just before sending: the choices as they are now, not as they were when this was queued.
    await notificationsApi.register(json.data, channelsOff());
    return true;
  } catch {
    return false;
  }
}

let waiting = false;

/**
 * NOTIF-37, NOTIF-38: after a per-channel choice changes, sends the subscription again with the new choices.
 * Changes made while one is still waiting in the queue share it: it reads the choices when it starts.
 */
export function syncPushChoices(): void {
  if (waiting) return;
  waiting = true;
  void enqueue(() => {
    waiting = false;
    return registerNow();
  });
}

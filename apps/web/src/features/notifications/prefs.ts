import {
  MESSAGE_NOTIFICATION_CHANNELS,
  type MessageNotificationChannel,
  messagePrefChannel,
  NOTIFICATION_LOCAL_KEYS,
} from '@parley/contracts';

/** Fired on this window when a choice changes, so the bell and the settings card stay in step. */
const CHANGED = 'parley:notification-prefs';
const changed = () => window.dispatchEvent(new Event(CHANGED));

/** Calls `fn` when a notification choice changes here or in another tab; returns the unsubscribe. */
export function onPrefsChange(fn: () => void): () => void {
  const onStorage = (e: StorageEvent) => {
    if (e.key === null || e.key === NOTIFICATION_LOCAL_KEYS.sound || e.key.startsWith('MessageNotification_')) fn();
  };
  window.addEventListener(CHANGED, fn);
  window.addEventListener('storage', onStorage);
  return () => {
    window.removeEventListener(CHANGED, fn);
    window.removeEventListener('storage', onStorage);
  };
}

/** NOTIF-19, NOTIF-37: the sound choice is kept locally as yes or no (off until the first click). */
export const soundPref = {
  get: (): boolean => localStorage.getItem(NOTIFICATION_LOCAL_KEYS.sound) === 'yes',
  set: (on: boolean) => {
    localStorage.setItem(NOTIFICATION_LOCAL_KEYS.sound, on ? 'yes' : 'no');
    changed();
  },
};

/** NOTIF-37, NOTIF-38: browser notifications for new messages, per channel (on unless turned off). */
export const messagePref = {
  get: (channel: string): boolean => localStorage.getItem(NOTIFICATION_LOCAL_KEYS.message(channel)) !== 'no',
  set: (channel: string, on: boolean) => {
    localStorage.setItem(NOTIFICATION_LOCAL_KEYS.message(channel), on ? 'yes' : 'no');
    changed();
  },
};

/** The channels offered in the per-channel choice (see the contract). */
export const MESSAGE_CHANNELS: readonly string[] = MESSAGE_NOTIFICATION_CHANNELS;

/** The choice a ticket's channel code follows (`livechat` is LIVECHAT, GRAPH_EMAIL is EMAIL). */
export const prefChannel = messagePrefChannel;

/** NOTIF-37, NOTIF-38: the channels turned off here, as sent with the Web Push subscription. */
export const channelsOff = (): MessageNotificationChannel[] =>
  MESSAGE_NOTIFICATION_CHANNELS.filter((c) => !messagePref.get(c));

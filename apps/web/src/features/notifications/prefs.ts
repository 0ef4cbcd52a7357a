import { NOTIFICATION_LOCAL_KEYS } from '@parley/contracts';

/** NOTIF-19, NOTIF-37: the sound choice is kept locally as yes or no (off until the first click). */
export const soundPref = {
  get: (): boolean => localStorage.getItem(NOTIFICATION_LOCAL_KEYS.sound) === 'yes',
  set: (on: boolean) => localStorage.setItem(NOTIFICATION_LOCAL_KEYS.sound, on ? 'yes' : 'no'),
};

/** NOTIF-37, NOTIF-38: browser notifications for new messages, per channel (on unless turned off). */
export const messagePref = {
  get: (channel: string): boolean => localStorage.getItem(NOTIFICATION_LOCAL_KEYS.message(channel)) !== 'no',
  set: (channel: string, on: boolean) =>
    localStorage.setItem(NOTIFICATION_LOCAL_KEYS.message(channel), on ? 'yes' : 'no'),
};

/** The channels offered in the per-channel choice (the ones that carry customer messages). */
export const MESSAGE_CHANNELS = [
  'LIVECHAT',
  'EMAIL',
  'WHATSAPP',
  'FB_PM',
  'IG_PM',
  'TW_DM',
  'LINE_DM',
  'TELEGRAM',
  'SMS',
];

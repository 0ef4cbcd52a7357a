/**
 * Texts of the notification settings and of the browser notifications of new messages (NOTIF-37, NOTIF-38:
 * design, the spec gives none). In one place so they can be translated later.
 */
const plain = (s: string) =>
  s
    .replace(/<[^>]*>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

export const NOTIFICATION_SETTINGS_STRINGS = {
  title: 'Notifications',
  sound: 'Notification sound',
  soundHint: 'Plays for new notifications, and for new messages while Parley is in the background.',
  browser: 'Browser notifications',
  browserGranted: 'Allowed in this browser: new messages show while Parley is in the background.',
  browserDenied: "Blocked in this browser. Allow notifications for this site in the browser's settings.",
  browserDefault: 'Not allowed yet in this browser.',
  browserUnsupported: 'This browser does not support notifications.',
  allow: 'Allow browser notifications',
  channels: 'New messages by channel',
  channelsHint: 'Show a browser notification for a new message on these channels (kept in this browser).',
  messageTitle: (from: string, ticketNumber: number) => `${from} (#${ticketNumber})`,
  messageBody: (text: string, files: string[]) => {
    const t = plain(text);
    if (t) return t.length > 140 ? `${t.slice(0, 139)}…` : t;
    return files.length > 0 ? `Sent a file: ${files.join(', ')}` : '';
  },
} as const;

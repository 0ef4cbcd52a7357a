import type {
  FcmKeyAnswer,
  MessageNotificationChannel,
  Notification,
  NotificationCategory,
  NotificationCheckAnswer,
  PushSubscriptionJson,
} from '@parley/contracts';
import { api } from '../../lib/http';

/** NOTIF-22..29, NOTIF-35: the notification calls (the session cookie rides along). */
export const notificationsApi = {
  check: () => api<NotificationCheckAnswer>('GET', '/notification/check'),
  page: (type: NotificationCategory, loaded: Notification[]) => {
    const last = loaded.at(-1);
    const q = last ? `&lastId=${last.id}&offset=${loaded.length}` : '&offset=0';
    return api<Notification[]>('GET', `/notification/get?type=${type}${q}`);
  },
  read: (category: NotificationCategory, lastId?: number) =>
    api<{ result: 'success' }>('POST', '/api/notification/read', { category, lastId }),
  remove: (id: number) => api<{ result: 'success' }>('POST', '/api/notification/remove', { id }),
  pushKey: () => api<FcmKeyAnswer>('GET', '/api/fcm/key'),
  register: (token: PushSubscriptionJson, channelsOff: MessageNotificationChannel[]) =>
    api<{ result: 'success' }>('POST', '/api/fcm/token', {
      token,
      type: 'web',
      domain: location.host,
      channels_off: channelsOff,
    }),
};

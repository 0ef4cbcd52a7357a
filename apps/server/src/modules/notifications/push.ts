import type https from 'node:https';
import {
  ErrorCode,
  type FcmTokenInput,
  FOCUS_REFRESH_MS,
  messagePrefChannel,
  NOTIFICATION_STRINGS,
  type Notification,
  notificationLink,
  type PushPayload,
  PushSubscriptionJson,
} from '@parley/contracts';
import type pino from 'pino';
import webpush from 'web-push';
import type { DB } from '../../platform/db/db.js';
import { AppError } from '../../platform/http/errors.js';
import { type Listener, runCommand, type StoredEvent } from '../../platform/outbox/index.js';
import type { AppSocket } from '../../platform/realtime/realtime.js';
import { NOTIFICATION_CREATED } from './commands/notifyUsers.js';
import type { Viewer } from './notifications.queries.js';
import { type AllowedPushHost, publicPushAgent, pushEndpointKind } from './pushEndpoints.js';
import type { VapidKeys } from './vapid.js';

/** A focus report older than this is stale (a tab repeats it every FOCUS_REFRESH_MS; a node may have died). */
export const FOCUS_STALE_MS = 2 * FOCUS_REFRESH_MS;

/** The answer to a subscription whose endpoint is not a push service the server sends to. */
export const PUSH_ENDPOINT_REFUSED =
  "The push endpoint is not accepted: Web Push goes only to the browsers' push services over https.";

/**
 * NOTIF-35, NOTIF-36: stores the caller's Web Push subscription (`token`: the subscription object or its
 * JSON). Anything else is a 400 and nothing is stored. An endpoint already known moves to the caller.
 * The endpoint must be a known push service's (or one of PUSH_ALLOWED_HOSTS): the server connects there.
 */
export async function registerSubscription(
  db: DB,
  v: Viewer,
  input: FcmTokenInput,
  allowedHosts: readonly AllowedPushHost[] = [],
): Promise<void> {
  let raw: unknown = input.token;
  if (typeof raw === 'string') {
    try {
      raw = JSON.parse(raw);
    } catch {
      raw = null;
    }
  }
  const sub = PushSubscriptionJson.safeParse(raw);
  if (!sub.success) throw new AppError(400, ErrorCode.validation, NOTIFICATION_STRINGS.badSubscription);
  const { endpoint, keys } = sub.data;
  if (!pushEndpointKind(endpoint, allowedHosts)) throw new AppError(400, ErrorCode.validation, PUSH_ENDPOINT_REFUSED);
  const row = {
    account_id: v.accountId,
    user_id: v.userId,
    endpoint,
    p256dh: keys.p256dh,
    auth: keys.auth,
    domain: input.domain,
    created_at: Date.now(),
    // Absent: a new subscription has every channel on, a known one keeps its stored choice.
    ...(input.channels_off ? { channels_off: JSON.stringify(input.channels_off) } : {}),
  };
  await runCommand(db, (trx) =>
    trx
      .insertInto('push_subscriptions')
      .values(row)
      .onConflict((oc) =>
        oc.column('endpoint').doUpdateSet({
          account_id: row.account_id,
          user_id: row.user_id,
          p256dh: row.p256dh,
          auth: row.auth,
          domain: row.domain,
          created_at: row.created_at,
          ...(row.channels_off === undefined ? {} : { channels_off: row.channels_off }),
        }),
      )
      .execute(),
  );
}

/** Whether any tab of the user reported focus recently. */
export async function userHasFocus(db: DB, accountId: number, userId: number, at = Date.now()): Promise<boolean> {
  const r = await db
    .selectFrom('notification_focus')
    .select('socket_id')
    .where('account_id', '=', accountId)
    .where('user_id', '=', userId)
    .where('focused', '=', 1)
    .where('updated_at', '>', at - FOCUS_STALE_MS)
    .executeTakeFirst();
  return Boolean(r);
}

/** The socket side: a tab says whether it has focus; its row goes when it disconnects. */
export function focusSocket(db: DB, log: pino.Logger) {
  return (socket: AppSocket) => {
    const { accountId, userId } = socket.data.auth;
    socket.on('notificationFocus', (focused) => {
      const row = { account_id: accountId, user_id: userId, focused: focused === true ? 1 : 0, updated_at: Date.now() };
      void db
        .insertInto('notification_focus')
        .values({ socket_id: socket.id, ...row })
        .onConflict((oc) => oc.column('socket_id').doUpdateSet(row))
        .execute()
        .catch((err) => log.warn({ err }, 'notification focus not recorded'));
    });
    socket.on('disconnect', () => {
      void db
        .deleteFrom('notification_focus')
        .where('socket_id', '=', socket.id)
        .execute()
        .catch(() => {});
    });
  };
}

export interface PushOptions {
  db: DB;
  keys: VapidKeys;
  /** The VAPID subject: a mailto: or https: contact of the operator. */
  subject: string;
  log: pino.Logger;
  /** Hosts of PUSH_ALLOWED_HOSTS: sent to besides the known push services, whatever they resolve to. */
  allowedHosts?: readonly AllowedPushHost[];
  /** Trust for the allowed hosts (tests pass an agent that trusts their self-signed endpoint). */
  agent?: https.Agent;
}

/** What the service worker shows for a notification. */
export const pushPayloadOf = (n: Notification): PushPayload => ({
  id: n.id,
  title: n.title,
  body: n.body,
  category: n.category,
  type: n.type,
  url: notificationLink(n),
});

/** Whether a subscription's stored `channels_off` turns the choice of `channel` off (bad JSON: all on). */
export function channelOff(channelsOff: string | null, channel: string): boolean {
  if (!channelsOff) return false;
  try {
    const off = JSON.parse(channelsOff) as unknown;
    return Array.isArray(off) && off.includes(messagePrefChannel(channel));
  } catch {
    return false;
  }
}

/**
 * Sends one payload to every subscription of a user; drops subscriptions the push service says are gone.
 * With `messageChannel` (a new message's ticket channel), skips the subscriptions whose browser turned that
 * channel's MessageNotification choice off (NOTIF-37, NOTIF-38).
 */
export async function pushToUser(
  o: PushOptions,
  accountId: number,
  userId: number,
  payload: PushPayload,
  messageChannel?: string,
) {
  const subs = await o.db
    .selectFrom('push_subscriptions')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('user_id', '=', userId)
    .execute();
  let sent = 0;
  for (const s of subs) {
    if (messageChannel !== undefined && channelOff(s.channels_off, messageChannel)) continue;
    // Checked again when sending: a row stored before the check existed, or under other settings, is not
    // sent to; a known service's name must resolve to public addresses only (publicPushAgent).
    const kind = pushEndpointKind(s.endpoint, o.allowedHosts ?? []);
    if (!kind) {
      o.log.warn({ endpointHost: hostOf(s.endpoint) }, 'web push endpoint not allowed; skipped');
      continue;
    }
    const agent = kind === 'known' ? publicPushAgent : o.agent;
    try {
      await webpush.sendNotification(
        { endpoint: s.endpoint, keys: { p256dh: s.p256dh, auth: s.auth } },
        JSON.stringify(payload),
        {
          vapidDetails: { subject: o.subject, publicKey: o.keys.publicKey, privateKey: o.keys.privateKey },
          TTL: 3600,
          contentEncoding: 'aes128gcm',
          timeout: 10_000,
          ...(agent ? { agent } : {}),
        },
      );
      sent++;
    } catch (err) {
      const { statusCode: status, code } = err as { statusCode?: number; code?: string };
      if (status === 404 || status === 410)
        await o.db.deleteFrom('push_subscriptions').where('id', '=', s.id).execute();
      else o.log.warn({ status, code, endpointHost: hostOf(s.endpoint) }, 'web push failed');
    }
  }
  return sent;
}

const hostOf = (endpoint: string) => {
  try {
    return new URL(endpoint).host;
  } catch {
    return '';
  }
};

const userOfRooms = (rooms: string[]) => {
  for (const r of rooms) {
    const m = /^user:(\d+)$/.exec(r);
    if (m) return Number(m[1]);
  }
  return null;
};

/**
 * A new notification (SLA alerts included) becomes a Web Push when no tab of the user has focus.
 * At-least-once like every effect: a repeat may show a second browser notification with the same tag.
 */
export function pushListener(o: PushOptions): Listener {
  return {
    name: 'notifications.webpush',
    kind: 'effect',
    // Pushes of different events are independent: the relay may send several at once.
    unordered: true,
    events: [NOTIFICATION_CREATED],
    async handle(e: StoredEvent) {
      const userId = userOfRooms(e.rooms);
      if (userId === null) return;
      if (await userHasFocus(o.db, e.accountId, userId)) return;
      await pushToUser(o, e.accountId, userId, pushPayloadOf(e.payload as Notification));
    },
  };
}

import { randomBytes } from 'node:crypto';
import {
  CHANNEL_KINDS,
  CHANNEL_OF_KIND,
  CHANNEL_STRINGS,
  CHANNELS,
  type ChannelKind,
  type ChannelView,
  META_KINDS,
  mayUseChannel,
  PLANS,
} from '@parley/contracts';
import type { Selectable } from 'kysely';
import type { DB } from '../../platform/db/db.js';
import type { ChannelConnectionsTable } from '../../platform/db/schema.js';
import type { Trx } from '../../platform/outbox/index.js';
import type { Secrets } from '../email/index.js';
import type { OpenConnection } from './adapter.js';

export type ConnectionRow = Selectable<ChannelConnectionsTable>;

/** The path providers post to: the random key names the connection (and so the account). */
export const WEBHOOK_PATH = '/api/channels/webhook/:key';
export const webhookUrl = (publicUrl: string | undefined, key: string) =>
  publicUrl ? `${publicUrl.replace(/\/+$/, '')}/api/channels/webhook/${key}` : null;

/** 24 random bytes: the key in a webhook address, and the verify token / secret token a provider echoes. */
export const newWebhookKey = () => randomBytes(24).toString('base64url');
export const newVerifyToken = () => randomBytes(24).toString('hex');

const json = <T>(s: string, fallback: T): T => {
  try {
    return JSON.parse(s) as T;
  } catch {
    return fallback;
  }
};

export const isKind = (k: string): k is ChannelKind => (CHANNEL_KINDS as readonly string[]).includes(k);

/** A connection as the admin sees it: never a secret. */
export function toView(r: ConnectionRow, publicUrl: string | undefined): ChannelView {
  const kind = r.kind as ChannelKind;
  const sealed = json<Record<string, string>>(r.secrets, {});
  return {
    id: Number(r.id),
    kind,
    channel: CHANNEL_OF_KIND[kind],
    name: r.name,
    departmentId: r.department_id === null ? null : Number(r.department_id),
    active: Number(r.active) === 1,
    settings: json<Record<string, string>>(r.settings, {}),
    hasToken: !!(sealed.accessToken || sealed.botToken || sealed.channelAccessToken || sealed.authToken),
    hasAppSecret: !!(sealed.appSecret || sealed.channelSecret || sealed.authToken || sealed.consumerSecret),
    webhookUrl: webhookUrl(publicUrl, r.webhook_key),
    // Meta's handshake needs it typed into its dashboard; Telegram's is registered by us.
    verifyToken: META_KINDS.includes(kind) ? r.verify_token : null,
    lastError: r.last_error,
    lastErrorAt: r.last_error_at === null ? null : Number(r.last_error_at),
    lastEventAt: r.last_event_at === null ? null : Number(r.last_event_at),
  };
}

/** The row's secrets opened, or null when one does not open with this SECRETS_KEY (or none is set). */
export function openConnection(r: ConnectionRow, secrets: Secrets | null): OpenConnection | null {
  if (!isKind(r.kind) || !secrets) return null;
  const accountId = Number(r.account_id);
  const open: Record<string, string> = {};
  for (const [k, v] of Object.entries(json<Record<string, string>>(r.secrets, {}))) {
    const plain = secrets.open(accountId, v);
    if (plain === null) return null;
    open[k] = plain;
  }
  return {
    id: Number(r.id),
    accountId,
    kind: r.kind,
    settings: json<Record<string, string>>(r.settings, {}),
    secrets: open,
    verifyToken: r.verify_token,
    webhookKey: r.webhook_key,
  };
}

export async function findConnection(db: DB | Trx, accountId: number, id: number) {
  return db
    .selectFrom('channel_connections')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** By its webhook key: the provider's request names no account, the key does. */
export async function connectionByKey(db: DB | Trx, key: string) {
  return db.selectFrom('channel_connections').selectAll().where('webhook_key', '=', key).executeTakeFirst();
}

export async function listConnections(db: DB | Trx, accountId: number) {
  return db.selectFrom('channel_connections').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
}

/**
 * The kinds an account's plan lets it connect, and those it does not include with the words a connect of
 * each would be refused with (PLAN-20..22), so Settings can say so before anyone fills a form.
 */
export async function kindsOnPlan(
  db: DB | Trx,
  accountId: number,
): Promise<{ allowed: ChannelKind[]; notOnPlan: { kind: ChannelKind; description: string }[] }> {
  const account = await db.selectFrom('accounts').select('plan').where('id', '=', accountId).executeTakeFirst();
  const plan = Number(account?.plan ?? PLANS.trial);
  const allowed = CHANNEL_KINDS.filter((k) => mayUseChannel(plan, CHANNEL_OF_KIND[k]));
  const notOnPlan = CHANNEL_KINDS.filter((k) => !allowed.includes(k)).map((kind) => {
    const channel = CHANNEL_OF_KIND[kind];
    return { kind, description: CHANNEL_STRINGS.notOnPlan(plan, channel, CHANNELS[channel]) };
  });
  return { allowed, notOnPlan };
}

/** Keeps a connection's last error (shown in Settings), never a secret. */
export async function recordConnectionError(db: DB, c: { id: number; accountId: number }, words: string | null) {
  await db
    .updateTable('channel_connections')
    .set(words === null ? { last_error: null, last_error_at: null } : { last_error: words, last_error_at: Date.now() })
    .where('account_id', '=', c.accountId)
    .where('id', '=', c.id)
    .execute()
    .catch(() => {});
}

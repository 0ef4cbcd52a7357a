import { createHmac } from 'node:crypto';
import {
  INTEGRATION_STRINGS,
  LIVECHAT_QUEUED,
  WEBHOOK_HEADERS,
  type WebhookBody,
  type WebhookEvent,
  WORKSPACE_CHANNEL,
} from '@parley/contracts';
import type { DB } from '../../platform/db/db.js';
import { type Listener, runCommand, type StoredEvent, type Trx } from '../../platform/outbox/index.js';
import { TICKET_RATED } from '../tickets/index.js';
import { queueDelivery, WEBHOOK_DELIVERY_QUEUED } from './webhooks.js';
import { type AllowedWebhookHost, postWebhook } from './webhookUrl.js';

/**
 * Tries of one delivery (the first and the relay's retries, 1 s, 2 s, 4 s ... at most 60 s apart: about two
 * minutes in all) before it is failed. Below the relay's own limit of 10, so the log, not the relay, ends it.
 */
export const WEBHOOK_TRIES = 8;

/** The spine's events a webhook may hear, by the name a subscription uses (the same, but for CSAT). */
const SOURCES: Record<string, WebhookEvent> = {
  'ticket.created': 'ticket.created',
  'ticket.updated': 'ticket.updated',
  'message.created': 'message.created',
  [LIVECHAT_QUEUED]: 'livechat.queued',
  'livechat.accepted': 'livechat.accepted',
  'livechat.ended': 'livechat.ended',
  [TICKET_RATED]: 'ticket.rated',
};

/** `X-Parley-Signature`: `sha256=` and the hex HMAC-SHA256 of `<timestamp>.<body>` with the webhook's secret. */
export function signWebhook(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/**
 * Whether an event's conversation is one a webhook may carry: a Workspace chat is its members' only (docs/
 * foundation.md, Conversations), so neither its messages nor its ticket go out.
 */
async function concernsWorkspace(trx: Trx, e: StoredEvent): Promise<boolean> {
  const p = e.payload as { channel?: unknown; ticketId?: unknown };
  if (typeof p.channel === 'string') return p.channel === WORKSPACE_CHANNEL;
  if (e.type !== 'message.created' || typeof p.ticketId !== 'number') return false;
  const t = await trx
    .selectFrom('tickets')
    .select('channel')
    .where('account_id', '=', e.accountId)
    .where('id', '=', p.ticketId)
    .executeTakeFirst();
  return t?.channel === WORKSPACE_CHANNEL;
}

/**
 * Turns the spine's events into deliveries: for every active webhook of the account subscribed to the event,
 * a delivery row with the body to send and a `webhook.delivery_queued` event, in the relay's transaction
 * (transactional: exactly once per event).
 */
export const webhookQueueListener: Listener = {
  name: 'webhooks.queue',
  kind: 'transactional',
  events: Object.keys(SOURCES),
  async handle(e, trx) {
    const event = SOURCES[e.type]!;
    const hooks = await trx
      .selectFrom('webhooks')
      .select(['id', 'events'])
      .where('account_id', '=', e.accountId)
      .where('active', '=', 1)
      .orderBy('id')
      .execute();
    const targets = hooks.filter((h) => (JSON.parse(h.events) as string[]).includes(event));
    if (targets.length === 0 || (await concernsWorkspace(trx, e))) return;
    const body: WebhookBody = {
      event,
      eventId: e.id,
      accountId: e.accountId,
      createdAt: e.createdAt,
      data: e.payload,
    };
    const text = JSON.stringify(body);
    for (const h of targets)
      await queueDelivery(trx, {
        accountId: e.accountId,
        webhookId: Number(h.id),
        event,
        body: text,
        redeliveryOf: null,
      });
  },
};

export interface WebhookSenderDeps {
  db: DB;
  allowedHosts: readonly AllowedWebhookHost[];
  /** The time the signature's timestamp and the log are stamped with. */
  now?: () => number;
}

/**
 * Sends one delivery and records the attempt (status, error, time, count). A 2xx delivers it; anything else
 * throws while tries are left, so the relay sends it again with its backoff, and fails it after the last.
 * A delivery already settled (a repeat of the relay's at-least-once) or whose webhook is gone is left alone.
 */
export async function sendDelivery(deps: WebhookSenderDeps, accountId: number, deliveryId: number, tries: number) {
  const { db } = deps;
  const now = deps.now ?? Date.now;
  const row = await db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhooks as w', (j) => j.onRef('w.id', '=', 'd.webhook_id').onRef('w.account_id', '=', 'd.account_id'))
    .select(['d.id', 'd.event', 'd.body', 'd.state', 'w.url', 'w.secret', 'w.active'])
    .where('d.account_id', '=', accountId)
    .where('d.id', '=', deliveryId)
    .executeTakeFirst();
  if (!row || row.state !== 'pending') return;
  const at = now();
  const timestamp = String(Math.floor(at / 1000));
  let status: number | null = null;
  let error = '';
  try {
    if (!Number(row.active)) throw new Error(INTEGRATION_STRINGS.paused);
    status = await postWebhook(
      row.url,
      {
        [WEBHOOK_HEADERS.timestamp]: timestamp,
        [WEBHOOK_HEADERS.signature]: signWebhook(row.secret, timestamp, row.body),
        [WEBHOOK_HEADERS.event]: row.event,
        [WEBHOOK_HEADERS.delivery]: String(row.id),
        'user-agent': 'Parley-Webhooks',
      },
      row.body,
      deps.allowedHosts,
    );
    if (status < 200 || status > 299) error = `HTTP ${status}`;
  } catch (err) {
    error = (err instanceof Error ? err.message : String(err)).slice(0, 500);
  }
  const last = error === '' || tries >= WEBHOOK_TRIES || !Number(row.active);
  await runCommand(db, (trx) =>
    trx
      .updateTable('webhook_deliveries')
      .set({
        state: error === '' ? 'delivered' : last ? 'failed' : 'pending',
        attempts: tries,
        status_code: status,
        error,
        last_attempt_at: at,
      })
      .where('account_id', '=', accountId)
      .where('id', '=', deliveryId)
      .where('state', '=', 'pending')
      .execute(),
  );
  if (!last) throw new Error(`webhook delivery ${deliveryId}: ${error}`);
}

/** The relay's sender of deliveries: unordered, so a slow receiver holds up nothing else. */
export function webhookSendListener(deps: WebhookSenderDeps): Listener {
  return {
    name: 'webhooks.send',
    kind: 'effect',
    events: [WEBHOOK_DELIVERY_QUEUED],
    unordered: true,
    handle: (e) => sendDelivery(deps, e.accountId, (e.payload as { deliveryId: number }).deliveryId, e.attempts + 1),
  };
}

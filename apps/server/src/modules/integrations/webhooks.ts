import { randomBytes } from 'node:crypto';
import {
  INTEGRATION_STRINGS,
  type WebhookDelivery,
  type WebhookEvent,
  type WebhookInput,
  type WebhookItem,
} from '@parley/contracts';
import type { AuthContext } from '../../platform/auth/sessions.js';
import type { DB } from '../../platform/db/db.js';
import { badRequest, notFound } from '../../platform/http/errors.js';
import { appendEvent, runCommand, type Trx } from '../../platform/outbox/index.js';
import { type AllowedWebhookHost, webhookUrlProblem } from './webhookUrl.js';

/** The event that hands one delivery to the sender (payload: `{ deliveryId }`). */
export const WEBHOOK_DELIVERY_QUEUED = 'webhook.delivery_queued';
/** Deliveries shown per webhook, newest first. */
export const DELIVERIES_SHOWN = 50;

type State = WebhookDelivery['state'];

function webhooksQuery(db: DB | Trx, accountId: number) {
  return db
    .selectFrom('webhooks as w')
    .select(['w.id', 'w.url', 'w.events', 'w.active', 'w.created_at'])
    .select((eb) =>
      eb
        .selectFrom('webhook_deliveries as d')
        .select('d.state')
        .whereRef('d.webhook_id', '=', 'w.id')
        .whereRef('d.account_id', '=', 'w.account_id')
        .orderBy('d.id', 'desc')
        .limit(1)
        .as('last_state'),
    )
    .where('w.account_id', '=', accountId);
}

type WebhookRow = Awaited<ReturnType<ReturnType<typeof webhooksQuery>['executeTakeFirstOrThrow']>>;

const toItem = (r: WebhookRow): WebhookItem => ({
  id: Number(r.id),
  url: r.url,
  events: JSON.parse(r.events) as WebhookEvent[],
  active: Boolean(Number(r.active)),
  createdAt: Number(r.created_at),
  lastState: (r.last_state ?? null) as State | null,
});

export async function listWebhooks(db: DB, accountId: number): Promise<WebhookItem[]> {
  return (await webhooksQuery(db, accountId).orderBy('w.id').execute()).map(toItem);
}

function checkedUrl(url: string, allowed: readonly AllowedWebhookHost[]): string {
  const problem = webhookUrlProblem(url, allowed);
  if (problem) throw badRequest(problem);
  return url;
}

/** A new webhook with a fresh signing secret, which only this answer carries. */
export async function createWebhook(
  db: DB,
  auth: AuthContext,
  input: Required<WebhookInput>,
  allowed: readonly AllowedWebhookHost[],
): Promise<{ item: WebhookItem; secret: string }> {
  const url = checkedUrl(input.url, allowed);
  const secret = `whsec_${randomBytes(24).toString('base64url')}`;
  const at = Date.now();
  const item = await runCommand(db, async (trx) => {
    const { id } = await trx
      .insertInto('webhooks')
      .values({
        account_id: auth.accountId,
        url,
        events: JSON.stringify([...new Set(input.events)]),
        secret,
        active: input.active ? 1 : 0,
        created_by: auth.userId,
        created_at: at,
        updated_at: at,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return toItem(await webhooksQuery(trx, auth.accountId).where('w.id', '=', Number(id)).executeTakeFirstOrThrow());
  });
  return { item, secret };
}

export async function updateWebhook(
  db: DB,
  accountId: number,
  id: number,
  input: Required<WebhookInput>,
  allowed: readonly AllowedWebhookHost[],
): Promise<WebhookItem> {
  const url = checkedUrl(input.url, allowed);
  return runCommand(db, async (trx) => {
    const r = await trx
      .updateTable('webhooks')
      .set({
        url,
        events: JSON.stringify([...new Set(input.events)]),
        active: input.active ? 1 : 0,
        updated_at: Date.now(),
      })
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) !== 1) throw notFound(INTEGRATION_STRINGS.webhookNotFound);
    return toItem(await webhooksQuery(trx, accountId).where('w.id', '=', id).executeTakeFirstOrThrow());
  });
}

/** Removes a webhook and its delivery log; deliveries still queued find it gone and are dropped. */
export async function deleteWebhook(db: DB, accountId: number, id: number): Promise<void> {
  await runCommand(db, async (trx) => {
    await trx
      .deleteFrom('webhook_deliveries')
      .where('account_id', '=', accountId)
      .where('webhook_id', '=', id)
      .execute();
    const r = await trx
      .deleteFrom('webhooks')
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .executeTakeFirst();
    if (Number(r.numDeletedRows) !== 1) throw notFound(INTEGRATION_STRINGS.webhookNotFound);
  });
}

function deliveriesQuery(db: DB | Trx, accountId: number) {
  return db
    .selectFrom('webhook_deliveries')
    .select([
      'id',
      'webhook_id',
      'event',
      'state',
      'attempts',
      'status_code',
      'error',
      'created_at',
      'last_attempt_at',
      'redelivery_of',
    ])
    .where('account_id', '=', accountId);
}

type DeliveryRow = Awaited<ReturnType<ReturnType<typeof deliveriesQuery>['executeTakeFirstOrThrow']>>;
const num = (v: number | null) => (v === null ? null : Number(v));

const toDelivery = (r: DeliveryRow): WebhookDelivery => ({
  id: Number(r.id),
  webhookId: Number(r.webhook_id),
  event: r.event,
  state: r.state as State,
  attempts: Number(r.attempts),
  statusCode: num(r.status_code),
  error: r.error,
  createdAt: Number(r.created_at),
  lastAttemptAt: num(r.last_attempt_at),
  redeliveryOf: num(r.redelivery_of),
});

/** A webhook's latest deliveries, newest first (404 for another account's webhook). */
export async function listDeliveries(db: DB, accountId: number, webhookId: number): Promise<WebhookDelivery[]> {
  const hook = await db
    .selectFrom('webhooks')
    .select('id')
    .where('account_id', '=', accountId)
    .where('id', '=', webhookId)
    .executeTakeFirst();
  if (!hook) throw notFound(INTEGRATION_STRINGS.webhookNotFound);
  const rows = await deliveriesQuery(db, accountId)
    .where('webhook_id', '=', webhookId)
    .orderBy('id', 'desc')
    .limit(DELIVERIES_SHOWN)
    .execute();
  return rows.map(toDelivery);
}

/** Queues one delivery: its row (pending) and the event that hands it to the sender, in the caller's transaction. */
export async function queueDelivery(
  trx: Trx,
  d: { accountId: number; webhookId: number; event: string; body: string; redeliveryOf: number | null },
): Promise<number> {
  const { id } = await trx
    .insertInto('webhook_deliveries')
    .values({
      account_id: d.accountId,
      webhook_id: d.webhookId,
      event: d.event,
      body: d.body,
      state: 'pending',
      attempts: 0,
      status_code: null,
      error: '',
      created_at: Date.now(),
      last_attempt_at: null,
      redelivery_of: d.redeliveryOf,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await appendEvent(trx, {
    accountId: d.accountId,
    type: WEBHOOK_DELIVERY_QUEUED,
    payload: { deliveryId: Number(id) },
  });
  return Number(id);
}

/** Sends a delivery again, as it was, as a new delivery of the log (the old one stays as it ended). */
export async function redeliver(db: DB, accountId: number, deliveryId: number): Promise<WebhookDelivery> {
  return runCommand(db, async (trx) => {
    const old = await trx
      .selectFrom('webhook_deliveries')
      .select(['webhook_id', 'event', 'body'])
      .where('account_id', '=', accountId)
      .where('id', '=', deliveryId)
      .executeTakeFirst();
    if (!old) throw notFound(INTEGRATION_STRINGS.deliveryNotFound);
    const id = await queueDelivery(trx, {
      accountId,
      webhookId: Number(old.webhook_id),
      event: old.event,
      body: old.body,
      redeliveryOf: deliveryId,
    });
    return toDelivery(await deliveriesQuery(trx, accountId).where('id', '=', id).executeTakeFirstOrThrow());
  });
}

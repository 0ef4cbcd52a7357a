import { z } from 'zod';

/**
 * The API for integrations (docs/integrations.md): API tokens for the REST API, sent as
 * `Authorization: Bearer <token>`, and outgoing webhooks, signed and retried, with a delivery log.
 */

/** Every API token starts with this, so the guard tells one from a session token without a look-up. */
export const API_TOKEN_PREFIX = 'prl_';
/** What a token may do: `read` calls GET (and HEAD); `write` also POST, PUT, PATCH and DELETE. */
export const API_TOKEN_SCOPES = ['read', 'write'] as const;
export type ApiTokenScope = (typeof API_TOKEN_SCOPES)[number];
/** `personal`: acts as its user, never more than they may. `account`: made and managed by admins. */
export const API_TOKEN_KINDS = ['personal', 'account'] as const;
export type ApiTokenKind = (typeof API_TOKEN_KINDS)[number];

/** The events an account may subscribe a webhook to, with the words Settings shows for them. */
export const WEBHOOK_EVENTS = {
  'ticket.created': 'Ticket created',
  'ticket.updated': 'Ticket updated',
  'message.created': 'Message created',
  'livechat.queued': 'Live chat queued',
  'livechat.accepted': 'Live chat accepted',
  'livechat.ended': 'Live chat ended',
  'ticket.rated': 'CSAT rating',
} as const;
export type WebhookEvent = keyof typeof WEBHOOK_EVENTS;
export const WEBHOOK_EVENT_NAMES = Object.keys(WEBHOOK_EVENTS) as [WebhookEvent, ...WebhookEvent[]];

/** The headers of every delivery: the signature is HMAC-SHA256 over `<timestamp>.<body>` with the secret. */
export const WEBHOOK_HEADERS = {
  timestamp: 'x-parley-timestamp',
  signature: 'x-parley-signature',
  event: 'x-parley-event',
  delivery: 'x-parley-delivery',
} as const;

export const INTEGRATION_STRINGS = {
  title: 'API and webhooks',
  tokensTitle: 'API tokens',
  tokensHint:
    'Send a token as "Authorization: Bearer <token>" to call the REST API. A personal token acts as you; an account token is managed by every admin.',
  newToken: 'New token',
  tokenName: 'Name',
  tokenKind: 'Kind',
  personal: 'Personal',
  account: 'Account',
  scopeRead: 'Read only',
  scopeWrite: 'Read and write',
  scopes: 'Access',
  create: 'Create',
  cancel: 'Cancel',
  revoke: 'Revoke',
  revoked: 'Token revoked.',
  created: 'Created',
  lastUsed: 'Last used',
  never: 'Never',
  noTokens: 'No API tokens yet.',
  shownOnce: 'Copy this token now: it is shown only once.',
  tokenLabel: 'Token',
  secretLabel: 'Signing secret',
  copy: 'Copy',
  copied: 'Copied',
  done: 'Done',
  apiReference: 'API reference',
  webhooksTitle: 'Webhooks',
  webhooksHint:
    'Parley posts the chosen events to each URL, signed with its secret (HMAC-SHA256 over "timestamp.body"), and retries a failed delivery with backoff.',
  addWebhook: 'Add webhook',
  editWebhook: 'Edit webhook',
  url: 'URL',
  events: 'Events',
  active: 'Active',
  inactive: 'Paused',
  save: 'Save',
  remove: 'Remove',
  removeConfirm: 'Remove this webhook and its delivery log? Deliveries still queued are dropped.',
  removed: 'Webhook removed.',
  edit: 'Edit',
  noWebhooks: 'No webhooks yet.',
  secretShownOnce: 'The signing secret of this webhook: copy it now, it is shown only once.',
  deliveries: 'Deliveries',
  noDeliveries: 'No deliveries yet.',
  redeliver: 'Redeliver',
  redelivered: 'Delivery queued again.',
  status: 'Status',
  attempt: 'Attempts',
  when: 'When',
  error: 'Error',
  event: 'Event',
  pickEvents: 'Choose at least one event.',
  tokenNameRequired: 'Give the token a name.',
  readOnlyToken: 'This API token may only read: writing needs a token with write access.',
  tokensNotHere: 'API tokens are managed in a signed-in session, not with an API token.',
  tokenNotFound: 'No such API token.',
  accountTokensAdmins: 'Only admins make account tokens.',
  webhookNotFound: 'No such webhook.',
  deliveryNotFound: 'No such delivery.',
  badUrl: 'Give a full URL, like https://example.com/hook.',
  httpsOnly: 'A webhook URL must use https.',
  privateAddress: 'A webhook may not go to a private or local address.',
  unknownEvent: 'Unknown event.',
  paused: 'The webhook is paused.',
  states: { pending: 'Pending', delivered: 'Delivered', failed: 'Failed' },
} as const;

export const ApiTokenItem = z.object({
  id: z.number(),
  name: z.string(),
  kind: z.enum(API_TOKEN_KINDS),
  scopes: z.array(z.enum(API_TOKEN_SCOPES)),
  /** The first characters of the token, to tell tokens apart (the rest is never stored). */
  hint: z.string(),
  /** Who made it (its user, for a personal token). */
  userId: z.number(),
  userName: z.string(),
  createdAt: z.number(),
  /** When it was last used (ms), written at most once a minute; null if never. */
  lastUsedAt: z.number().nullable(),
});
export type ApiTokenItem = z.infer<typeof ApiTokenItem>;

export const ApiTokenListAnswer = z.object({ result: z.literal('success'), data: z.array(ApiTokenItem) });
export type ApiTokenListAnswer = z.infer<typeof ApiTokenListAnswer>;

export const ApiTokenInput = z.object({
  name: z.string().trim().min(1).max(100),
  kind: z.enum(API_TOKEN_KINDS).default('personal'),
  /** `write` includes `read`. */
  scope: z.enum(API_TOKEN_SCOPES),
});
export type ApiTokenInput = z.input<typeof ApiTokenInput>;

/** The new token, in `token`, only in this answer: it is stored as a hash. */
export const ApiTokenCreatedAnswer = z.object({
  result: z.literal('success'),
  data: ApiTokenItem,
  token: z.string(),
});
export type ApiTokenCreatedAnswer = z.infer<typeof ApiTokenCreatedAnswer>;

export const IntegrationIdParams = z.object({ id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) });

export const WebhookItem = z.object({
  id: z.number(),
  url: z.string(),
  events: z.array(z.enum(WEBHOOK_EVENT_NAMES)),
  active: z.boolean(),
  createdAt: z.number(),
  /** The newest delivery's state, if any. */
  lastState: z.enum(['pending', 'delivered', 'failed']).nullable(),
});
export type WebhookItem = z.infer<typeof WebhookItem>;

export const WebhookListAnswer = z.object({ result: z.literal('success'), data: z.array(WebhookItem) });
export type WebhookListAnswer = z.infer<typeof WebhookListAnswer>;

export const WebhookInput = z.object({
  url: z.string().trim().min(1).max(2000),
  events: z.array(z.enum(WEBHOOK_EVENT_NAMES)).min(1).max(WEBHOOK_EVENT_NAMES.length),
  active: z.boolean().default(true),
});
export type WebhookInput = z.input<typeof WebhookInput>;

export const WebhookAnswer = z.object({ result: z.literal('success'), data: WebhookItem });
/** A new webhook and its signing secret, which only this answer carries. */
export const WebhookCreatedAnswer = WebhookAnswer.extend({ secret: z.string() });
export type WebhookCreatedAnswer = z.infer<typeof WebhookCreatedAnswer>;

export const WebhookDelivery = z.object({
  id: z.number(),
  webhookId: z.number(),
  event: z.string(),
  state: z.enum(['pending', 'delivered', 'failed']),
  attempts: z.number(),
  /** The receiver's HTTP status of the last attempt; null when it gave none (refused, timed out). */
  statusCode: z.number().nullable(),
  error: z.string(),
  createdAt: z.number(),
  lastAttemptAt: z.number().nullable(),
  /** The delivery this one sends again, if it is a redelivery. */
  redeliveryOf: z.number().nullable(),
});
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

export const WebhookDeliveriesAnswer = z.object({ result: z.literal('success'), data: z.array(WebhookDelivery) });
export type WebhookDeliveriesAnswer = z.infer<typeof WebhookDeliveriesAnswer>;
export const WebhookDeliveryAnswer = z.object({ result: z.literal('success'), data: WebhookDelivery });

/** The event of a delivery an automation rule's "Call a webhook" action sends (not a subscription's event). */
export const AUTOMATION_WEBHOOK_EVENT = 'automation.rule';

/** What a receiver gets: the event's name, when it happened, and its data. */
export interface WebhookBody {
  event: WebhookEvent | typeof AUTOMATION_WEBHOOK_EVENT;
  /** The event's id: the same in a redelivery, so a receiver can tell a repeat (the delivery id is a header). */
  eventId: number;
  accountId: number;
  /** When the event happened (ms). */
  createdAt: number;
  data: unknown;
}

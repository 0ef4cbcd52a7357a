/** The API for integrations: API tokens and outgoing webhooks (see docs/integrations.md). */

/** The relay's listeners: events to deliveries (transactional), and the signed sender with retries. */
export { signWebhook, WEBHOOK_TRIES, webhookQueueListener, webhookSendListener } from './delivery.js';
/** HTTP routes: tokens (made, listed, revoked) and webhooks with their delivery log and redelivery. */
export { type IntegrationRouteDeps, integrationRoutes } from './integrations.routes.js';
/** Queues one signed delivery to a webhook (an automation rule's "Call a webhook" action). */
export { queueDelivery } from './webhooks.js';

import { randomBytes } from 'node:crypto';
import type https from 'node:https';
import pino from 'pino';
import { migrateToLatest } from './migrations/index.js';
import {
  AccountAi,
  aiRoutes,
  aiSettingsRoutes,
  Classifiers,
  emotionListener,
  languageListener,
  recommendRoutes,
  scamCallsRoutes,
  trainClassifiers,
  translatebotListener,
  WhatToSayIndex,
} from './modules/ai/index.js';
import { announcementRoutes, announcementSocket } from './modules/announcements/index.js';
import { auditRoutes } from './modules/audit/index.js';
import { authRoutes, myAccountRoutes, pruneRateLimitHits, signupRoutes } from './modules/auth/index.js';
import { automationListener, automationRoutes, pruneAutomationChains } from './modules/automation/index.js';
import { billingRoutes, sandboxProvider, stripeProvider } from './modules/billing/index.js';
import { calendarRoutes } from './modules/calendar/index.js';
import { callRoutes } from './modules/calls/index.js';
import { campaignRoutes } from './modules/campaigns/index.js';
import { caseRoutes } from './modules/cases/index.js';
import {
  type ChannelAdapter,
  channelRoutes,
  failInterruptedChannelReplies,
  instagramAdapter,
  lineAdapter,
  messengerAdapter,
  sendChannelReplies,
  smsAdapter,
  storeWebhooks,
  telegramAdapter,
  webhookCommitter,
  whatsappAdapter,
  xAdapter,
} from './modules/channels/index.js';
import { contactRoutes, customerAnalysisRoutes } from './modules/contacts/index.js';
import { departmentRoutes } from './modules/departments/index.js';
import {
  EmailFetchers,
  emailRoutes,
  failInterruptedEmails,
  fetchGraphMessages,
  GraphClient,
  GraphSync,
  graphRoutes,
  InboundSmtp,
  Secrets,
  sendMailboxReplies,
} from './modules/email/index.js';
import { encryptionRoutes } from './modules/encryption/index.js';
import { eventsRoutes } from './modules/events/index.js';
import { formRoutes } from './modules/forms/index.js';
import { integrationRoutes, webhookQueueListener, webhookSendListener } from './modules/integrations/index.js';
import { interactionRoutes } from './modules/interactions/index.js';
import { kbPublicRoutes, kbRoutes } from './modules/kb/index.js';
import { labelRoutes } from './modules/labels/index.js';
import { liveChatConversations, liveChatRealtime, liveChatRoutes, sweepOffersTask } from './modules/livechat/index.js';
import {
  Conversations,
  deliveriesRoutes,
  httpTranslator,
  messageRoutes,
  messageSocket,
  staffConversations,
  UploadGate,
} from './modules/messages/index.js';
import {
  assignedListener,
  conversationPushListener,
  focusSocket,
  loadVapidKeys,
  mentionListener,
  notificationRoutes,
  pushListener,
} from './modules/notifications/index.js';
import { productRoutes } from './modules/products/index.js';
import { profileRoutes } from './modules/profile/index.js';
import { replyRoutes } from './modules/replies/index.js';
import { dashboardRoutes, reportFactsListener, reportRoutes } from './modules/reports/index.js';
import { retentionRoutes, retentionTask } from './modules/retention/index.js';
import { scheduledRoutes, sendScheduledMessages } from './modules/scheduled/index.js';
import { searchRoutes } from './modules/search/index.js';
import { servicesRoutes } from './modules/services/index.js';
import { SlaEngine, slaLabelsListener, slaRoutes, slaTicketListener } from './modules/sla/index.js';
import { loadSamlSpKey, ssoRoutes } from './modules/sso/index.js';
import { Presence, presenceSocket, statusRoutes } from './modules/status/index.js';
import { supervisoryRoutes } from './modules/supervisory/index.js';
import { surveyRoutes } from './modules/surveys/index.js';
import { ticketRoomSocket, ticketRoutes } from './modules/tickets/index.js';
import { timerRoutes } from './modules/timer/index.js';
import { tradingMentionListener, tradingRoutes } from './modules/trading/index.js';
import { usersRoutes } from './modules/users/index.js';
import { workspaceConversations, workspaceRoutes, workspaceSocket } from './modules/workspace/index.js';
import type { Clock } from './platform/clock.js';
import type { Config } from './platform/config.js';
import { type DbHandle, openDatabase } from './platform/db/db.js';
import { createHttp } from './platform/http/server.js';
import { prettyStream } from './platform/logFormat.js';
import { REDACT, serializeRequest } from './platform/logging.js';
import { createMailer } from './platform/mail.js';
import { createMetrics } from './platform/metrics.js';
import { Relay } from './platform/outbox/index.js';
import { loadPemPair } from './platform/pemPair.js';
import { createRealtime, type Realtime, redisNamespace } from './platform/realtime/realtime.js';
import { Scheduler } from './platform/scheduler.js';
import { pruneDeliveredEvents, pruneExpiredSessions } from './platform/tasks.js';

export interface ParleyOptions {
  /** A logger to use instead of a new pino logger (tests pass a silent one or a capturing stream). */
  logger?: pino.Logger;
  /** Start the relay and the scheduler (default true). */
  background?: boolean;
  /**
   * The server's clock (default the real time): SLA checks, the scheduler's leases and timers, presence's
   * grace and heartbeats, announcement expiry, the session cache and the typing list's clearing read it. Tests
   * inject one they move.
   */
  clock?: Clock;
  /** Web Push trust for PUSH_ALLOWED_HOSTS (tests pass an agent trusting their local push endpoint). */
  pushAgent?: https.Agent;
}

export interface Parley {
  config: Config;
  handle: DbHandle;
  app: Awaited<ReturnType<typeof createHttp>>;
  realtime: Realtime;
  relay: Relay;
  scheduler: Scheduler;
  presence: Presence;
  sla: SlaEngine;
  /** The mailbox fetchers of this node (started with the background work). */
  email: EmailFetchers;
  /** The inbound SMTP listener for forwarded mail (started with the background work); null when off. */
  inbound: InboundSmtp | null;
  /** Microsoft 365 mailboxes' subscriptions and delta rounds of this node (started with the background work). */
  graphSync: GraphSync;
  nodeId: string;
  /** Listens on config.HOST:PORT; resolves to the bound port. */
  listen(): Promise<number>;
  close(): Promise<void>;
}

/**
 * Who hears and who may read each channel's conversations: the staff channels' rule, and the rules the
 * live chat and Workspace modules bring. Each server instance has its own; a channel missing here is heard
 * and read by nobody.
 */
export function conversationRules(): Conversations {
  return new Conversations({ ...staffConversations(), ...liveChatConversations, ...workspaceConversations });
}

/**
 * The server's logger: JSON lines (for log collectors) unless `stream` is given; readable lines when standard
 * output is a terminal (logFormat.ts).
 */
export function createLogger(
  config: Config,
  stream: pino.DestinationStream | undefined = process.stdout.isTTY ? prettyStream() : undefined,
): pino.Logger {
  return pino(
    { level: config.LOG_LEVEL, redact: REDACT, serializers: { req: serializeRequest as never } },
    stream as pino.DestinationStream,
  );
}

/** start: config -> db -> migrations -> http + realtime -> relay -> scheduler. */
export async function createParley(config: Config, opts: ParleyOptions = {}): Promise<Parley> {
  const logger = opts.logger ?? createLogger(config);
  const nodeId = config.NODE_ID || `node-${randomBytes(4).toString('hex')}`;
  const handle = openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR });
  const { db, dialect } = handle;
  try {
    const applied = await migrateToLatest(db, dialect);
    if (applied.length > 0) logger.info({ applied }, 'migrations applied');
  } catch (err) {
    await handle.close();
    throw err;
  }

  const metrics = createMetrics();
  let liveChat: ReturnType<typeof liveChatRealtime> | undefined;
  const conversations = conversationRules();
  const app = await createHttp({ config, db, logger, metrics, clock: opts.clock });
  const mailer = createMailer({ smtpUrl: config.SMTP_URL, from: config.MAIL_FROM, log: logger });
  authRoutes(app, {
    db,
    hostVariants: config.HOST_VARIANTS,
    signupEnabled: config.SIGNUP_ENABLED,
    version: { id: config.APP_VERSION, description: config.APP_WHATS_NEW },
    sipWsUrl: config.SIP_WS_URL ?? '',
  });
  myAccountRoutes(app, { db });
  signupRoutes(app, {
    db,
    mailer,
    publicUrl: config.PUBLIC_URL,
    hostVariants: config.HOST_VARIANTS,
    limits: {
      signupEnabled: config.SIGNUP_ENABLED,
      signupPerIp: config.SIGNUP_LIMIT_PER_IP,
      resetPerAddress: config.RESET_LIMIT_PER_ADDRESS,
      resetPerIp: config.RESET_LIMIT_PER_IP,
    },
  });
  usersRoutes(app, { db });
  auditRoutes(app, { db });
  statusRoutes(app, { db });
  announcementRoutes(app, { db, clock: opts.clock });
  labelRoutes(app, { db });
  slaRoutes(app, { db, now: opts.clock ?? Date.now });
  departmentRoutes(app, { db });
  callRoutes(app, { db, conversations, dataDir: config.DATA_DIR, defaultSipWsUrl: config.SIP_WS_URL ?? '' });
  ticketRoutes(app, { db, conversations });
  eventsRoutes(app, { db });
  const visitorLimits = liveChatRoutes(app, {
    db,
    conversations,
    // The visitor socket's hub comes with realtime, after the routes: it is looked up when a chat is taken.
    placesChanged: (accountId) => liveChat?.placesChanged(accountId),
    webDist: config.WEB_DIST,
    trustProxy: config.TRUST_PROXY,
    mailer,
  });
  workspaceRoutes(app, { db, conversations });
  // Multipart requests read at once, per account and in this process (uploads, replies, voice).
  const uploadGate = new UploadGate(config.UPLOADS_PER_ACCOUNT, config.UPLOADS_PER_PROCESS);
  const secrets = config.SECRETS_KEY ? new Secrets(config.SECRETS_KEY) : null;
  // AI-01: each account's engine and translator (its language model, else the installation's services).
  const accountAi = new AccountAi({
    hintsUrl: config.AI_HINTS_URL,
    hintsKey: config.AI_HINTS_API_KEY,
    translator: config.TRANSLATE_URL
      ? httpTranslator(config.TRANSLATE_URL, config.TRANSLATE_API_KEY, config.AI_TIMEOUT_MS)
      : null,
    secrets,
    timeoutMs: config.AI_TIMEOUT_MS,
    allowedHosts: config.AI_ALLOWED_HOSTS,
  });
  aiSettingsRoutes(app, { db, ai: accountAi });
  aiRoutes(app, {
    db,
    conversations,
    providers: accountAi,
    dataDir: config.DATA_DIR,
    uploadGate,
  });
  const classifiers = new Classifiers(db);
  const whatToSay = new WhatToSayIndex(db, config.PUBLIC_URL);
  recommendRoutes(app, { db, conversations, classifiers, whatToSay });
  scamCallsRoutes(app, { db });
  tradingRoutes(app, { db, now: opts.clock });
  await messageRoutes(app, {
    db,
    conversations,
    dataDir: config.DATA_DIR,
    uploadGate,
    mailer,
    translators: accountAi.translators,
  });
  deliveriesRoutes(app, { db });
  const vapid = await loadVapidKeys(db, dialect, config.DATA_DIR);
  notificationRoutes(app, { db, vapidPublicKey: vapid.publicKey, pushAllowedHosts: config.PUSH_ALLOWED_HOSTS });
  profileRoutes(app, { db });
  replyRoutes(app, { db, conversations });
  automationRoutes(app, { db });
  searchRoutes(app, { db, conversations });
  interactionRoutes(app, { db, conversations });
  contactRoutes(app, { db, conversations });
  customerAnalysisRoutes(app, { db, now: opts.clock ?? Date.now });
  formRoutes(app, { db, conversations });
  surveyRoutes(app, { db, conversations });
  campaignRoutes(app, { db });
  productRoutes(app, { db });
  encryptionRoutes(app, { db });
  caseRoutes(app, { db });
  timerRoutes(app, { db, now: opts.clock ?? Date.now });
  calendarRoutes(app, { db, host: config.PUBLIC_URL ? new URL(config.PUBLIC_URL).host : 'parley.local' });
  kbRoutes(app, { db });
  scheduledRoutes(app, { db, conversations });
  kbPublicRoutes(app, {
    db,
    dataDir: config.DATA_DIR,
    publicUrl: config.PUBLIC_URL,
    hostVariants: config.HOST_VARIANTS,
  });
  reportRoutes(app, { db, now: opts.clock ?? Date.now, analyticsUrl: config.ANALYTICS_URL });
  dashboardRoutes(app, { db, now: opts.clock ?? Date.now });
  supervisoryRoutes(app, { db, now: opts.clock ?? Date.now });
  const stripe =
    config.PAYMENT_PROVIDER === 'stripe'
      ? stripeProvider({
          secretKey: config.STRIPE_SECRET_KEY ?? '',
          webhookSecret: config.STRIPE_WEBHOOK_SECRET ?? '',
          apiBase: config.STRIPE_API_BASE,
          publicUrl: config.PUBLIC_URL ?? `http://${config.HOST}:${config.PORT}`,
        })
      : null;
  billingRoutes(app, {
    db,
    provider: config.PAYMENT_PROVIDER === 'sandbox' ? sandboxProvider : stripe,
    stripe,
    trustProxy: config.TRUST_PROXY,
  });
  const email = new EmailFetchers({
    db,
    conversations,
    dataDir: config.DATA_DIR,
    nodeId,
    log: logger,
    secrets,
    pollMs: config.EMAIL_POLL_MS,
  });
  const graph = new GraphClient({ baseUrl: config.GRAPH_BASE_URL, loginUrl: config.GRAPH_LOGIN_URL });
  const graphIn = { db, conversations, dataDir: config.DATA_DIR, secrets, graph, log: logger };
  const graphSync = new GraphSync({
    ...graphIn,
    nodeId,
    publicUrl: config.PUBLIC_URL,
    pollMs: config.EMAIL_POLL_MS,
  });
  const inbound =
    config.INBOUND_SMTP_PORT === undefined
      ? null
      : new InboundSmtp({
          db,
          conversations,
          dataDir: config.DATA_DIR,
          log: logger,
          host: config.INBOUND_SMTP_HOST,
          port: config.INBOUND_SMTP_PORT,
          domain: config.INBOUND_SMTP_DOMAIN,
          maxBytes: config.INBOUND_SMTP_MAX_BYTES,
          tls: loadPemPair(config.INBOUND_SMTP_TLS_KEY_FILE, config.INBOUND_SMTP_TLS_CERT_FILE, {
            key: 'INBOUND_SMTP_TLS_KEY_FILE',
            cert: 'INBOUND_SMTP_TLS_CERT_FILE',
          }),
        });
  emailRoutes(app, {
    db,
    conversations,
    secrets,
    fetchers: email,
    forwardDomain: inbound ? config.INBOUND_SMTP_DOMAIN : null,
    graph,
    graphSync,
  });
  graphRoutes(app, graphIn);
  const channelAdapters = new Map<string, ChannelAdapter>([
    ['whatsapp', whatsappAdapter(config.WHATSAPP_API_URL)],
    ['messenger', messengerAdapter(config.MESSENGER_API_URL)],
    ['instagram', instagramAdapter(config.MESSENGER_API_URL)],
    ['telegram', telegramAdapter(config.TELEGRAM_API_URL)],
    ['line', lineAdapter(config.LINE_API_URL, config.LINE_DATA_API_URL)],
    ['sms', smsAdapter(config.SMS_API_URL, config.PUBLIC_URL)],
    ['x', xAdapter(config.X_API_URL)],
  ]);
  const channelDeps = {
    db,
    conversations,
    secrets,
    dataDir: config.DATA_DIR,
    adapters: channelAdapters,
    log: logger,
    takeWebhook: webhookCommitter(db),
  };
  channelRoutes(app, { ...channelDeps, publicUrl: config.PUBLIC_URL, telegramApiUrl: config.TELEGRAM_API_URL });
  integrationRoutes(app, { db, allowedHosts: config.WEBHOOK_ALLOWED_HOSTS });
  retentionRoutes(app, { db, dataDir: config.DATA_DIR, now: opts.clock ?? Date.now });
  ssoRoutes(app, {
    db,
    secrets,
    publicUrl: config.PUBLIC_URL,
    allowedHosts: config.SSO_ALLOWED_HOSTS,
    samlSp: loadSamlSpKey(config.SAML_SP_KEY_FILE, config.SAML_SP_CERT_FILE),
  });
  servicesRoutes(app, {
    translate: async (accountId) => (await accountAi.translatorFor(db, accountId)) !== null,
    // The offline engine answers when no service is named: hints are always on.
    aiHints: true,
    mail: !!config.SMTP_URL,
    analytics: !!config.ANALYTICS_URL,
  });
  await app.ready();

  const realtime = await createRealtime({
    httpServer: app.server,
    db,
    log: logger,
    redisUrl: config.REDIS_URL,
    redisPrefix: redisNamespace(config),
    sessionCacheMs: config.SESSION_CACHE_MS,
    clock: opts.clock,
    trustProxy: config.TRUST_PROXY,
  });
  realtime.io.on('connection', (s) => {
    metrics.sockets.inc();
    s.on('disconnect', () => metrics.sockets.dec());
  });
  // STATUS: presence follows the sockets of every node; a user whose last one closes goes Offline.
  const presence = new Presence({
    db,
    nodeId,
    log: logger,
    graceMs: config.PRESENCE_GRACE_MS,
    heartbeatMs: config.PRESENCE_HEARTBEAT_MS,
    clock: opts.clock,
  });
  realtime.onConnection(presenceSocket(presence, logger));
  realtime.onConnection(announcementSocket(db, logger, opts.clock));
  realtime.onConnection(ticketRoomSocket(db, opts.clock));
  realtime.onConnection(workspaceSocket(db, logger));
  realtime.onConnection(messageSocket(db, conversations, logger));
  realtime.onConnection(focusSocket(db, logger));
  liveChat = liveChatRealtime(realtime, db, conversations, logger, visitorLimits);

  // On Postgres the relay has connections of its own: a burst of commands holding the main pool must not
  // keep delivery (claim, listeners' transaction) waiting for a connection.
  const relayHandle =
    dialect === 'postgres'
      ? openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR, poolSize: 2 })
      : null;
  const relay = new Relay({
    db: relayHandle?.db ?? db,
    dialect,
    nodeId,
    leaseMs: config.RELAY_LEASE_MS,
    pollMs: config.RELAY_POLL_MS,
    batch: config.RELAY_BATCH,
    log: logger,
    commits: db,
  });
  relay.register(realtime.listener);
  relay.register(liveChat.listener);
  relay.register(liveChat.offerListener);
  relay.register(assignedListener);
  relay.register(slaTicketListener);
  relay.register(slaLabelsListener);
  relay.register(reportFactsListener);
  const pushSubject = config.PUBLIC_URL?.startsWith('https:') ? config.PUBLIC_URL : 'mailto:push@parley.invalid';
  const push = {
    db,
    keys: vapid,
    subject: pushSubject,
    log: logger,
    allowedHosts: config.PUSH_ALLOWED_HOSTS,
    agent: opts.pushAgent,
  };
  relay.register(pushListener(push));
  relay.register(mentionListener(conversations));
  relay.register(automationListener(conversations));
  relay.register(emotionListener({ dataDir: config.DATA_DIR, conversations }));
  relay.register(languageListener());
  relay.register(tradingMentionListener());
  relay.register(translatebotListener({ db, conversations, translators: accountAi.translators }));
  relay.register(conversationPushListener(push));
  relay.register(sendMailboxReplies({ db, conversations, secrets, dataDir: config.DATA_DIR, log: logger, graph }));
  relay.register(fetchGraphMessages(graphIn));
  relay.register(storeWebhooks(channelDeps));
  relay.register(sendChannelReplies(channelDeps));
  relay.register(webhookQueueListener);
  relay.register(webhookSendListener({ db, allowedHosts: config.WEBHOOK_ALLOWED_HOSTS }));
  metrics.gauge('parley_relay_events_delivered', 'Events this node delivered since start.', () => relay.delivered);
  metrics.gauge(
    'parley_relay_events_fanned_out_at_commit',
    'Events whose socket fan-out ran at their commit on this node since start.',
    () => relay.deliveredAtCommit,
  );
  metrics.gauge(
    'parley_relay_waiting_for_predecessor',
    'Committed events waiting on this node for an earlier event of their account to be fanned out.',
    () => relay.waitingForPredecessor,
  );
  metrics.labelledGauge(
    'parley_relay_seconds',
    'Time this node spent delivering events since start: claiming, in each effect listener, and in the batch transaction.',
    'part',
    () => relay.seconds,
  );
  const scheduler = new Scheduler(db, nodeId, logger, opts.clock);
  scheduler.schedule(pruneDeliveredEvents(db, config.EVENT_RETENTION_DAYS));
  scheduler.schedule(pruneExpiredSessions(db));
  scheduler.schedule(pruneAutomationChains(db, config.EVENT_RETENTION_DAYS));
  scheduler.schedule(pruneRateLimitHits(db));
  scheduler.schedule(presence.sweepTask());
  scheduler.schedule(sweepOffersTask(db));
  scheduler.schedule(failInterruptedEmails(db, conversations));
  scheduler.schedule(graphSync.task());
  scheduler.schedule(failInterruptedChannelReplies(db, conversations));
  scheduler.schedule(sendScheduledMessages(db, conversations, logger, opts.clock ?? Date.now));
  const sla = new SlaEngine({ db, log: logger, now: opts.clock });
  scheduler.schedule(sla.task());
  scheduler.schedule(trainClassifiers(db, classifiers));
  scheduler.schedule(retentionTask(db, config.DATA_DIR, opts.clock ?? Date.now));
  const background = opts.background ?? true;

  let closed = false;
  return {
    config,
    handle,
    app,
    realtime,
    relay,
    scheduler,
    nodeId,
    presence,
    sla,
    email,
    inbound,
    graphSync,
    async listen() {
      await presence.start();
      if (background) {
        relay.start();
        scheduler.start();
        email.start();
        graphSync.start();
        await inbound?.start();
      }
      await app.listen({ port: config.PORT, host: config.HOST });
      const addr = app.server.address();
      return typeof addr === 'object' && addr ? addr.port : config.PORT;
    },
    async close() {
      if (closed) return;
      closed = true;
      // First: a fetcher finishes the mail it is storing (its transaction) and releases its lease; the inbound
      // listener takes no new session and lets the open ones finish theirs.
      await inbound?.stop();
      await email.stop();
      await graphSync.stop();
      await relay.stop();
      await scheduler.stop();
      presence.stop();
      // Closing the HTTP server waits for requests under way; past the grace their connections are cut.
      const cut = setTimeout(() => {
        logger.warn({ graceMs: config.SHUTDOWN_GRACE_MS }, 'shutdown: cutting connections still busy');
        app.server.closeAllConnections();
      }, config.SHUTDOWN_GRACE_MS);
      realtime.io.disconnectSockets(true);
      await realtime.close().catch(() => {});
      await presence.close().catch((err) => logger.warn({ err }, 'presence: could not remove this node'));
      await app.close().catch(() => {});
      clearTimeout(cut);
      await relayHandle?.close();
      await handle.close();
    },
  };
}

import { randomBytes } from 'node:crypto';
import type https from 'node:https';
import pino from 'pino';
import { migrateToLatest } from './migrations/index.js';
import { aiRoutes, emotionListener, httpHints } from './modules/ai/index.js';
import { announcementRoutes, announcementSocket } from './modules/announcements/index.js';
import { auditRoutes } from './modules/audit/index.js';
import { authRoutes, myAccountRoutes, pruneRateLimitHits, signupRoutes } from './modules/auth/index.js';
import { callRoutes } from './modules/calls/index.js';
import { departmentRoutes } from './modules/departments/index.js';
import { eventsRoutes } from './modules/events/events.routes.js';
import { labelRoutes } from './modules/labels/index.js';
import { liveChatRealtime, liveChatRoutes, sweepOffersTask } from './modules/livechat/index.js';
import { httpTranslator, messageRoutes, messageSocket, UploadGate } from './modules/messages/index.js';
import {
  assignedListener,
  conversationPushListener,
  focusSocket,
  loadVapidKeys,
  mentionListener,
  notificationRoutes,
  pushListener,
} from './modules/notifications/index.js';
import { profileRoutes } from './modules/profile/index.js';
import { servicesRoutes } from './modules/services/index.js';
import { SlaEngine, slaLabelsListener, slaTicketListener } from './modules/sla/index.js';
import { Presence, presenceSocket, statusRoutes } from './modules/status/index.js';
import { ticketRoomSocket, ticketRoutes } from './modules/tickets/index.js';
import { usersRoutes } from './modules/users/index.js';
import { workspaceRoutes, workspaceSocket } from './modules/workspace/index.js';
import type { Config } from './platform/config.js';
import { type DbHandle, openDatabase } from './platform/db/db.js';
import { createHttp } from './platform/http/server.js';
import { REDACT, serializeRequest } from './platform/logging.js';
import { createMailer } from './platform/mail.js';
import { createMetrics } from './platform/metrics.js';
import { Relay } from './platform/outbox/index.js';
import { createRealtime, type Realtime, redisNamespace } from './platform/realtime/realtime.js';
import { Scheduler } from './platform/scheduler.js';
import { pruneDeliveredEvents, pruneExpiredSessions } from './platform/tasks.js';

export interface ParleyOptions {
  /** A logger to use instead of a new pino logger (tests pass a silent one or a capturing stream). */
  logger?: pino.Logger;
  /** Start the relay and the scheduler (default true). */
  background?: boolean;
  /** The SLA engine's clock (tests inject one). */
  clock?: () => number;
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
  nodeId: string;
  /** Listens on config.HOST:PORT; resolves to the bound port. */
  listen(): Promise<number>;
  close(): Promise<void>;
}

export function createLogger(config: Config, stream?: pino.DestinationStream): pino.Logger {
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
  const app = await createHttp({ config, db, logger, metrics });
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
  announcementRoutes(app, { db });
  labelRoutes(app, { db });
  departmentRoutes(app, { db });
  callRoutes(app, { db, defaultSipWsUrl: config.SIP_WS_URL ?? '' });
  ticketRoutes(app, { db });
  eventsRoutes(app, { db });
  const visitorLimits = liveChatRoutes(app, { db, webDist: config.WEB_DIST, trustProxy: config.TRUST_PROXY });
  workspaceRoutes(app, { db });
  // Multipart requests read at once, per account and in this process (uploads, replies, voice).
  const uploadGate = new UploadGate(config.UPLOADS_PER_ACCOUNT, config.UPLOADS_PER_PROCESS);
  aiRoutes(app, {
    db,
    hints: config.AI_HINTS_URL ? httpHints(config.AI_HINTS_URL, config.AI_HINTS_API_KEY) : null,
    dataDir: config.DATA_DIR,
    uploadGate,
  });
  await messageRoutes(app, {
    db,
    dataDir: config.DATA_DIR,
    uploadGate,
    mailer,
    translator: config.TRANSLATE_URL ? httpTranslator(config.TRANSLATE_URL, config.TRANSLATE_API_KEY) : null,
  });
  const vapid = await loadVapidKeys(db, dialect, config.DATA_DIR);
  notificationRoutes(app, { db, vapidPublicKey: vapid.publicKey, pushAllowedHosts: config.PUSH_ALLOWED_HOSTS });
  profileRoutes(app, { db });
  servicesRoutes(app, { translate: !!config.TRANSLATE_URL, aiHints: !!config.AI_HINTS_URL, mail: !!config.SMTP_URL });
  await app.ready();

  const realtime = await createRealtime({
    httpServer: app.server,
    db,
    log: logger,
    redisUrl: config.REDIS_URL,
    redisPrefix: redisNamespace(config),
    sessionCacheMs: config.SESSION_CACHE_MS,
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
  });
  realtime.onConnection(presenceSocket(presence, logger));
  realtime.onConnection(announcementSocket(db, logger));
  realtime.onConnection(ticketRoomSocket(db));
  realtime.onConnection(workspaceSocket(db, logger));
  realtime.onConnection(messageSocket(db, logger));
  realtime.onConnection(focusSocket(db, logger));
  const liveChat = liveChatRealtime(realtime, db, logger, visitorLimits);

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
  relay.register(mentionListener);
  relay.register(emotionListener({ dataDir: config.DATA_DIR }));
  relay.register(conversationPushListener(push));
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
  const scheduler = new Scheduler(db, nodeId, logger);
  scheduler.schedule(pruneDeliveredEvents(db, config.EVENT_RETENTION_DAYS));
  scheduler.schedule(pruneExpiredSessions(db));
  scheduler.schedule(pruneRateLimitHits(db));
  scheduler.schedule(presence.sweepTask());
  scheduler.schedule(sweepOffersTask(db));
  const sla = new SlaEngine({ db, log: logger, now: opts.clock });
  scheduler.schedule(sla.task());
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
    async listen() {
      await presence.start();
      if (background) {
        relay.start();
        scheduler.start();
      }
      await app.listen({ port: config.PORT, host: config.HOST });
      const addr = app.server.address();
      return typeof addr === 'object' && addr ? addr.port : config.PORT;
    },
    async close() {
      if (closed) return;
      closed = true;
      await relay.stop();
      await scheduler.stop();
      presence.stop();
      realtime.io.disconnectSockets(true);
      await realtime.close().catch(() => {});
      await presence.close().catch((err) => logger.warn({ err }, 'presence: could not remove this node'));
      await app.close().catch(() => {});
      await relayHandle?.close();
      await handle.close();
    },
  };
}

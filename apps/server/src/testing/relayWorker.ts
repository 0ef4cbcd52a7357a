import fs from 'node:fs';
import { sql } from 'kysely';
import pino from 'pino';
import { loadConfig } from '../platform/config.js';
import { openDatabase } from '../platform/db/db.js';
import { Relay } from '../platform/outbox/relay.js';

/**
 * A relay in a process of its own, for relay.kill.test.ts: `node --import tsx relayWorker.ts`.
 *
 * Reads the server's settings (DATABASE_URL or DATA_DIR, NODE_ID, RELAY_LEASE_MS, RELAY_POLL_MS,
 * RELAY_BATCH) plus EFFECT_LOG (a file) and EFFECT_DELAY_MS. The test has migrated the database and made
 * two tables: relay_kill_tx (no unique key, so a repeat shows) and relay_kill_effects (event_id unique).
 *
 * - `killTx`, transactional: one relay_kill_tx row per run, committed with its receipt.
 * - `killEffect`, effect: appends "<event id> <node>" to EFFECT_LOG on every run (what happened), then
 *   applies its effect idempotently, keyed by the event id (what a real effect listener must do).
 *
 * Prints "ready" once the relay runs; SIGTERM stops it cleanly.
 */
const config = loadConfig();
const nodeId = config.NODE_ID || `worker-${process.pid}`;
const effectLog = process.env.EFFECT_LOG ?? '';
const delayMs = Number(process.env.EFFECT_DELAY_MS ?? 0);
if (!effectLog) throw new Error('EFFECT_LOG is not set');

const handle = openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR });
const log = pino({ level: config.LOG_LEVEL }, pino.destination(2));
const relay = new Relay({
  db: handle.db,
  dialect: handle.dialect,
  nodeId,
  leaseMs: config.RELAY_LEASE_MS,
  pollMs: config.RELAY_POLL_MS,
  batch: config.RELAY_BATCH,
  log,
});

relay.register({
  name: 'killTx',
  kind: 'transactional',
  events: ['test.killed'],
  async handle(e, trx) {
    await sql`insert into relay_kill_tx (event_id, node_id) values (${e.id}, ${nodeId})`.execute(trx);
  },
});

relay.register({
  name: 'killEffect',
  kind: 'effect',
  events: ['test.killed'],
  async handle(e) {
    fs.appendFileSync(effectLog, `${e.id} ${nodeId}\n`);
    if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
    await sql`insert into relay_kill_effects (event_id, node_id) values (${e.id}, ${nodeId})
      on conflict (event_id) do nothing`.execute(handle.db);
  },
});

relay.start();
process.stdout.write('ready\n');

process.once('SIGTERM', () => {
  void relay
    .stop()
    .then(() => handle.close())
    .then(
      () => process.exit(0),
      (err) => {
        log.error({ err }, 'relay worker: stop failed');
        process.exit(1);
      },
    );
});

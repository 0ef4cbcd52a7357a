import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { type DbHandle, openDatabase } from '../../platform/db/db.js';
import { accountRows } from '../../testing/accountRows.js';
import { apiClient, signUpVia, uniq } from '../../testing/api.js';
import { waText, whatsappWebhook } from '../../testing/channelStandIns.js';
import { crashNode, type Node, startNode, stopAllNodes } from '../../testing/nodes.js';
import { freshPostgres, redisUrl } from '../../testing/support.js';
import { waitFor } from '../../testing/waitFor.js';

const PHONE_ID = '106540352242922';
const APP_SECRET = 'automation-kill-secret';
const TOTAL = 120;
const PEERS = 12;

/**
 * A rule runs exactly once per message even with two nodes and a SIGKILL mid-run: two server processes on
 * one Postgres database and Redis take a burst of WhatsApp webhooks, half of which say "refund"; one node is
 * killed with SIGKILL part way and started again. Every "refund" message gets exactly one run of the rule
 * (the run log's rule-and-event row), each ticket gets the label, the department and the priority once (one
 * system line each), and no other message runs it.
 */
describe.skipIf(!process.env.TEST_DATABASE_URL || !redisUrl)('automation through a SIGKILL on two nodes', () => {
  let handle: DbHandle | undefined;
  let drop: () => Promise<void> = async () => {};
  afterAll(async () => {
    await stopAllNodes();
    await handle?.db.destroy();
    await drop();
  });

  it('AUTOMATION "refund" on WHATSAPP applies exactly once per message across two nodes and a SIGKILL', async () => {
    const pg = await freshPostgres();
    drop = pg.drop;
    const env = {
      DATABASE_URL: pg.url,
      REDIS_URL: redisUrl!,
      SECRETS_KEY: randomBytes(32).toString('base64'),
      PUBLIC_URL: 'https://parley.example',
    };
    let a: Node = await startNode('auto-a', env);
    const b = await startNode('auto-b', env);
    const call = apiClient(a.url);
    const admin = await signUpVia(call);
    handle = openDatabase({ databaseUrl: pg.url, dataDir: a.dataDir });
    const db = handle.db;
    const { label, department } = accountRows(
      () => db,
      () => ({ channel: 'WHATSAPP' }),
    );
    const refund = await label(admin.accountId, 'Refund');
    const billing = await department(admin.accountId, 'Billing');
    const channel = await call('POST', '/api/channels', {
      token: admin.token,
      body: {
        name: 'Kill',
        settings: { kind: 'whatsapp', phoneNumberId: PHONE_ID, accessToken: 't', appSecret: APP_SECRET },
      },
    });
    expect(channel.status, channel.text).toBe(200);
    const path = new URL(channel.body.data.webhookUrl).pathname;
    const rule = await call('POST', '/api/automation/rules', {
      token: admin.token,
      body: {
        name: `Refund ${uniq()}`,
        event: 'customer_message',
        conditions: [
          { field: 'text', contains: 'refund' },
          { field: 'channel', in: ['WHATSAPP'] },
        ],
        actions: [
          { type: 'add_labels', labels: [refund] },
          { type: 'department', department_id: billing },
          { type: 'priority', priority: 'H' },
        ],
      },
    });
    expect(rule.status, rule.text).toBe(200);
    const ruleId = Number(rule.body.data.id);

    const hooks = Array.from({ length: TOTAL }, (_, i) => {
      const peer = `1650777${String(1000 + (i % PEERS))}`;
      const text = i % 2 === 0 ? `I want a refund, order ${i}` : `Where is order ${i}?`;
      return { i, ...whatsappWebhook(APP_SECRET, waText(peer, `P${i % PEERS}`, text, `wamid.auto-${i}`), PHONE_ID) };
    });
    const deliver = async (base: string, h: (typeof hooks)[number]) => {
      try {
        const r = await fetch(`${base}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-hub-signature-256': h.signature },
          body: h.body,
        });
        return r.status === 200;
      } catch {
        return false;
      }
    };
    // Ten senders alternate between the nodes; node A is killed once 40 are acknowledged.
    const acked = new Set<number>();
    let next = 0;
    let killed = false;
    const sender = async () => {
      while (next < TOTAL) {
        const h = hooks[next++]!;
        const base = h.i % 2 === 0 && !killed ? a.url : b.url;
        if (await deliver(base, h)) acked.add(h.i);
        if (!killed && acked.size >= 40) {
          killed = true;
          await crashNode(a);
        }
      }
    };
    await Promise.all(Array.from({ length: 10 }, sender));
    expect(killed).toBe(true);
    a = await startNode('auto-a', env, { port: a.port, dataDir: a.dataDir });
    // What got no 200 is delivered again (and a few that did: a repeat is harmless).
    for (const h of hooks.filter((x) => !acked.has(x.i) || x.i % 10 === 0)) await deliver(a.url, h);

    const customer = () =>
      db
        .selectFrom('messages')
        .select(['id', 'message', 'ticket_id'])
        .where('account_id', '=', admin.accountId)
        .where('sender', '=', 'visitor')
        .execute();
    await waitFor(async () => (await customer()).length === TOTAL, 'every message stored once', 60_000, 100);
    await waitFor(
      async () =>
        (
          await db
            .selectFrom('events')
            .select('id')
            .where('account_id', '=', admin.accountId)
            .where('delivered_at', 'is', null)
            .execute()
        ).length === 0,
      'every event delivered',
      90_000,
      100,
    );
    const messages = await customer();
    expect(new Set(messages.map((m) => m.message)).size).toBe(TOTAL);
    const runs = await db
      .selectFrom('automation_runs')
      .select(['event_id', 'ticket_id', 'outcome'])
      .where('rule_id', '=', ruleId)
      .execute();
    // One run per "refund" message (TOTAL / 2), none for the others: one event each, never two runs.
    expect(runs).toHaveLength(TOTAL / 2);
    expect(new Set(runs.map((r) => Number(r.event_id))).size).toBe(TOTAL / 2);
    const tickets = await db
      .selectFrom('tickets')
      .select(['id', 'label', 'department_id', 'priority'])
      .where('account_id', '=', admin.accountId)
      .where('channel', '=', 'WHATSAPP')
      .execute();
    // Peers with an even index got "refund" messages (i % 2 === 0 -> i % PEERS even).
    const withRefund = tickets.filter((t) => runs.some((r) => Number(r.ticket_id) === Number(t.id)));
    expect(withRefund).toHaveLength(PEERS / 2);
    for (const t of withRefund) {
      expect(JSON.parse(t.label)).toEqual([refund]);
      expect(Number(t.department_id)).toBe(billing);
      expect(t.priority).toBe('H');
      // Applied once: the first run changed it, the rest found nothing to change.
      expect(runs.filter((r) => Number(r.ticket_id) === Number(t.id) && r.outcome === 'applied')).toHaveLength(1);
      const lines = await db
        .selectFrom('messages')
        .select('message')
        .where('ticket_id', '=', Number(t.id))
        .where('type', '=', 'system')
        .execute();
      expect(lines.filter((l) => l.message.includes('Refund'))).toHaveLength(1);
    }
    for (const t of tickets.filter((x) => !withRefund.includes(x))) expect(JSON.parse(t.label)).toEqual([]);
  }, 300_000);
});

import { randomBytes } from 'node:crypto';
import { AUTOMATION_STRINGS, TICKET_STATUS, WEBHOOK_HEADERS } from '@parley/contracts';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createParley } from '../../app.js';
import { accountRows } from '../../testing/accountRows.js';
import { addUserVia, apiClient, type Call, type SignedUp, signUpVia, uniq } from '../../testing/api.js';
import { startWhatsAppStandIn, waText, whatsappWebhook } from '../../testing/channelStandIns.js';
import { dialects, startTestServer, tempDir, testConfig } from '../../testing/support.js';
import { waitFor } from '../../testing/waitFor.js';
import { startWebhookReceiver } from '../../testing/webhookReceiver.js';
import { signWebhook } from '../integrations/index.js';
import { pruneAutomationChains } from './prune.js';

const KEY = randomBytes(32).toString('base64');
const PHONE_ID = '106540352242922';
const WA = { accessToken: 'EAAG-test-token', appSecret: 'app-secret-1234' };

describe.each(dialects)('automation rules (%s)', (dialect) => {
  let s: Awaited<ReturnType<typeof startTestServer>>;
  let wa: Awaited<ReturnType<typeof startWhatsAppStandIn>>;
  let rx: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let call: Call;
  let admin: SignedUp;
  let agent: { token: string; username: string };
  let waKey: string;
  let refundLabel: number;
  let billing: number;
  const db = () => s.handle.db;
  const { label, department, ticket } = accountRows(db, () => ({ channel: 'WHATSAPP' }));

  const waPost = (url: string, value: Record<string, unknown>) => {
    const w = whatsappWebhook(WA.appSecret, value, PHONE_ID);
    return fetch(`${url}/api/channels/webhook/${waKey}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': w.signature },
      body: w.body,
    });
  };
  const ticketOfPeer = (peer: string) =>
    db()
      .selectFrom('tickets')
      .selectAll()
      .where('account_id', '=', admin.accountId)
      .where('channel_peer', '=', peer)
      .executeTakeFirst();
  /** The `message.created` events of a ticket's customer messages. */
  const customerEvents = async (ticketId: number) =>
    (
      await db()
        .selectFrom('events')
        .select(['id', 'payload', 'delivered_at'])
        .where('account_id', '=', admin.accountId)
        .where('type', '=', 'message.created')
        .orderBy('id')
        .execute()
    ).filter((e) => {
      const p = JSON.parse(e.payload) as { ticketId: number; fromCustomer?: boolean };
      return p.ticketId === ticketId && p.fromCustomer === true;
    });
  const runsOf = (ruleId: number) =>
    db().selectFrom('automation_runs').selectAll().where('rule_id', '=', ruleId).orderBy('id').execute();
  const systemLines = async (ticketId: number) =>
    (
      await db()
        .selectFrom('messages')
        .select('message')
        .where('ticket_id', '=', ticketId)
        .where('type', '=', 'system')
        .execute()
    ).map((m) => m.message);
  /** Every event of the account delivered: whatever the rules were going to do is done. */
  const settled = () =>
    waitFor(
      async () =>
        (
          await db()
            .selectFrom('events')
            .select('id')
            .where('account_id', '=', admin.accountId)
            .where('delivered_at', 'is', null)
            .execute()
        ).length === 0,
      'every event delivered',
      60_000,
    );
  const refundRule = (name = `Refund ${uniq()}`) => ({
    name,
    event: 'customer_message',
    conditions: [
      { field: 'text', contains: 'refund' },
      { field: 'channel', in: ['WHATSAPP'] },
    ],
    actions: [
      { type: 'add_labels', labels: [refundLabel] },
      { type: 'department', department_id: billing },
      { type: 'priority', priority: 'H' },
    ],
  });

  beforeAll(async () => {
    wa = await startWhatsAppStandIn({ phoneNumberId: PHONE_ID, accessToken: WA.accessToken });
    rx = await startWebhookReceiver();
    s = await startTestServer(dialect, {
      WEBHOOK_ALLOWED_HOSTS: rx.host,
      SECRETS_KEY: KEY,
      PUBLIC_URL: 'https://parley.example',
      WHATSAPP_API_URL: wa.url,
    });
    call = apiClient(s.url);
    admin = await signUpVia(call);
    agent = await addUserVia(call, admin.token, { username: `agent-${uniq()}`, type: 'agent', name: 'Bo' });
    const made = await call('POST', '/api/channels', {
      token: admin.token,
      body: { name: 'Support WhatsApp', settings: { kind: 'whatsapp', phoneNumberId: PHONE_ID, ...WA } },
    });
    expect(made.status, made.text).toBe(200);
    waKey = made.body.data.webhookUrl.split('/').at(-1);
    refundLabel = await label(admin.accountId, 'Refund');
    billing = await department(admin.accountId, 'Billing');
  }, 60_000);
  afterAll(async () => {
    await s?.stop();
    await wa?.close();
    await rx?.close();
  });

  it('AUTOMATION "refund" on WHATSAPP labels, moves to Billing and sets High once per message, even delivered twice', async () => {
    const made = await call('POST', '/api/automation/rules', { token: admin.token, body: refundRule() });
    expect(made.status, made.text).toBe(200);
    const ruleId = made.body.data.id;
    expect(made.body.data).toMatchObject({ enabled: true, event: 'customer_message', position: expect.any(Number) });

    const peer = `4915${Date.now() % 1e8}`;
    expect((await waPost(s.url, waText(peer, 'Pat', 'Hello, I want a REFUND please'))).status).toBe(200);
    const t = await waitFor(() => ticketOfPeer(peer), 'the ticket');
    const ticketId = Number(t.id);
    await waitFor(
      async () => (await runsOf(ruleId)).length === 1 && (await runsOf(ruleId))[0]!.did !== '[]',
      'the run',
    );
    await settled();
    const after = await ticketOfPeer(peer);
    expect(JSON.parse(after!.label)).toEqual([refundLabel]);
    expect(Number(after!.department_id)).toBe(billing);
    expect(after!.priority).toBe('H');
    const [run] = await runsOf(ruleId);
    expect(run).toMatchObject({ outcome: 'applied', ticket_id: ticketId, event: 'customer_message' });
    expect(JSON.parse(run!.matched)).toEqual(['Text contains "refund"', 'Channel is WHATSAPP']);
    expect(JSON.parse(run!.did)).toEqual(['Add labels', 'Assign to a department', 'Set priority']);
    const lines = await systemLines(ticketId);
    expect(lines.filter((l) => l.includes('Refund'))).toHaveLength(1);

    // The relay delivers the same event again, its receipt lost too: the run log's rule-and-event row keeps it
    // to one run, and nothing is applied twice.
    const [event] = await customerEvents(ticketId);
    await db().deleteFrom('event_receipts').where('event_id', '=', event!.id).execute();
    await db()
      .updateTable('events')
      .set({ delivered_at: null, attempts: 0, lease_owner: null, lease_until: null, available_at: Date.now() })
      .where('id', '=', event!.id)
      .execute();
    await waitFor(
      async () =>
        (await db().selectFrom('events').select('delivered_at').where('id', '=', event!.id).executeTakeFirstOrThrow())
          .delivered_at !== null,
      'the event delivered again',
    );
    await settled();
    expect(await runsOf(ruleId)).toHaveLength(1);
    expect(await systemLines(ticketId)).toEqual(lines);

    // A second message of the customer is a second event: the rule runs again, and finds nothing to change.
    expect((await waPost(s.url, waText(peer, 'Pat', 'Where is my refund?'))).status).toBe(200);
    await waitFor(async () => (await runsOf(ruleId)).length === 2, 'the second run');
    await settled();
    const second = (await runsOf(ruleId))[1]!;
    expect(second.outcome).toBe('no_change');
    expect(await systemLines(ticketId)).toEqual(lines);

    // The run log over HTTP, for admins only.
    const log = await call('GET', `/api/automation/runs?rule_id=${ruleId}`, { token: admin.token });
    expect(log.status).toBe(200);
    expect(log.body.data.map((r: { outcome: string }) => r.outcome)).toEqual(['no_change', 'applied']);
    expect((await call('GET', '/api/automation/runs', { token: agent.token })).status).toBe(403);

    // A message without the word, and a switched-off rule, run nothing.
    expect((await waPost(s.url, waText(peer, 'Pat', 'Thanks'))).status).toBe(200);
    const off = await call('PUT', `/api/automation/rules/${ruleId}`, {
      token: admin.token,
      body: { ...refundRule(made.body.data.name), enabled: false },
    });
    expect(off.status, off.text).toBe(200);
    expect(off.body.data.enabled).toBe(false);
    expect((await waPost(s.url, waText(peer, 'Pat', 'refund refund'))).status).toBe(200);
    await waitFor(async () => (await customerEvents(ticketId)).length === 4, 'the fourth message');
    await settled();
    expect(await runsOf(ruleId)).toHaveLength(2);
  });

  it.runIf(dialect === 'postgres')(
    'AUTOMATION two server instances on one Postgres apply the refund rule once per message',
    async () => {
      const made = await call('POST', '/api/automation/rules', { token: admin.token, body: refundRule() });
      expect(made.status, made.text).toBe(200);
      const ruleId = made.body.data.id;
      const second = await createParley(
        testConfig({
          DATABASE_URL: s.config.DATABASE_URL,
          DATA_DIR: tempDir(),
          NODE_ID: 'automation-b',
          SECRETS_KEY: KEY,
          PUBLIC_URL: 'https://parley.example',
          WHATSAPP_API_URL: wa.url,
        }),
        { logger: pino({ level: 'silent' }) },
      );
      try {
        const urls = [s.url, `http://127.0.0.1:${await second.listen()}`];
        const peers = Array.from({ length: 12 }, (_, i) => `4916${i}${Date.now() % 1e7}`);
        await Promise.all(
          peers.map(async (peer, i) => {
            expect((await waPost(urls[i % 2]!, waText(peer, `C${i}`, `refund for order ${i}`))).status).toBe(200);
          }),
        );
        let ran = 0;
        await waitFor(
          async () => {
            ran = (await runsOf(ruleId)).length;
            return ran === peers.length;
          },
          () => `a run per message (${ran} of ${peers.length})`,
          60_000,
        );
        await settled();
        const runs = await runsOf(ruleId);
        expect(new Set(runs.map((r) => Number(r.event_id))).size).toBe(peers.length);
        for (const peer of peers) {
          const t = (await ticketOfPeer(peer))!;
          expect(t.priority).toBe('H');
          expect((await systemLines(Number(t.id))).filter((l) => l.includes('Refund'))).toHaveLength(1);
        }
        // Both nodes delivered events of the account meanwhile (the rule ran wherever the claim fell).
        expect(runs.every((r) => r.outcome === 'applied')).toBe(true);
      } finally {
        await second.close();
      }
    },
  );

  it('AUTOMATION "Call a webhook" posts the rule, the trigger and the ticket to the webhook, signed, once per message; a switched-off webhook is logged as not sent', async () => {
    const hook = await call('POST', '/api/webhooks', {
      token: admin.token,
      body: { url: `http://${rx.host}/automation`, events: ['ticket.rated'] },
    });
    expect(hook.status, hook.text).toBe(200);
    const webhookId = hook.body.data.id as number;
    const made = await call('POST', '/api/automation/rules', {
      token: admin.token,
      body: {
        name: `Invoice hook ${uniq()}`,
        event: 'customer_message',
        conditions: [{ field: 'text', contains: 'invoice' }],
        actions: [{ type: 'webhook', webhook_id: webhookId }],
      },
    });
    expect(made.status, made.text).toBe(200);
    const ruleId = made.body.data.id as number;
    const peer = `4916${Date.now() % 1e8}`;
    expect((await waPost(s.url, waText(peer, 'Pat', 'Where is my invoice?'))).status).toBe(200);
    const t = await waitFor(() => ticketOfPeer(peer), 'the ticket');
    const got = await waitFor(() => rx.got.find((r) => r.path === '/automation'), 'the delivery');
    await settled();
    expect(rx.got.filter((r) => r.path === '/automation')).toHaveLength(1);
    const body = JSON.parse(got.body);
    expect(body).toMatchObject({
      event: 'automation.rule',
      accountId: admin.accountId,
      data: {
        rule: { id: ruleId },
        trigger: 'customer_message',
        ticket: { id: Number(t.id), ticket_number: Number(t.ticket_number), channel: 'WHATSAPP' },
      },
    });
    const stamp = String(got.headers[WEBHOOK_HEADERS.timestamp]);
    expect(got.headers[WEBHOOK_HEADERS.signature]).toBe(signWebhook(hook.body.secret, stamp, got.body));
    expect(JSON.parse((await runsOf(ruleId))[0]!.did)).toEqual(['Call a webhook']);

    // Switched off: the rule still runs, the log says the call was not made, nothing is posted.
    const off = await call('PUT', `/api/webhooks/${webhookId}`, {
      token: admin.token,
      body: { url: `http://${rx.host}/automation`, events: ['ticket.rated'], active: false },
    });
    expect(off.status, off.text).toBe(200);
    expect((await waPost(s.url, waText(peer, 'Pat', 'Another invoice question'))).status).toBe(200);
    await waitFor(async () => (await runsOf(ruleId)).length === 2, 'the second run');
    await settled();
    expect(JSON.parse((await runsOf(ruleId))[1]!.did)).toEqual([`Call a webhook: ${AUTOMATION_STRINGS.webhookOff}`]);
    expect(rx.got.filter((r) => r.path === '/automation')).toHaveLength(1);
  });

  it('AUTOMATION two rules that undo each other stop with a logged reason', async () => {
    const ping = `Ping ${uniq()}`;
    const a = await call('POST', '/api/automation/rules', {
      token: admin.token,
      body: {
        name: ping,
        event: 'status_changed',
        conditions: [
          { field: 'status', in: [TICKET_STATUS.open] },
          { field: 'text', contains: 'loop' },
        ],
        actions: [{ type: 'status', status: TICKET_STATUS.pending }],
      },
    });
    expect(a.status, a.text).toBe(200);
    const b = await call('POST', '/api/automation/rules', {
      token: admin.token,
      body: {
        name: `Pong ${uniq()}`,
        event: 'status_changed',
        conditions: [
          { field: 'status', in: [TICKET_STATUS.pending] },
          { field: 'text', contains: 'loop' },
        ],
        actions: [{ type: 'status', status: TICKET_STATUS.open }],
      },
    });
    expect(b.status, b.text).toBe(200);
    const ticketId = await ticket(admin.accountId, {
      title: 'A loop ticket',
      closed: TICKET_STATUS.resolved,
      ticket_number: 900_000 + Math.floor(Math.random() * 90_000),
    });
    const set = await call('POST', '/api/ticket/status', {
      token: admin.token,
      body: { id: ticketId, status: TICKET_STATUS.open },
    });
    expect(set.status, set.text).toBe(200);
    await waitFor(async () => (await runsOf(a.body.data.id)).some((r) => r.outcome === 'stopped'), 'the stop');
    await settled();
    const ranA = await runsOf(a.body.data.id);
    const ranB = await runsOf(b.body.data.id);
    // Each rule is re-triggered by its own change once (A, B, A, B), then A stops.
    expect(ranA.map((r) => r.outcome)).toEqual(['applied', 'applied', 'stopped']);
    expect(ranB.map((r) => r.outcome)).toEqual(['applied', 'applied']);
    expect(ranA[2]!.reason).toBe(AUTOMATION_STRINGS.loopStopped(ping));
    const t = await db().selectFrom('tickets').select('closed').where('id', '=', ticketId).executeTakeFirstOrThrow();
    expect(Number(t.closed)).toBe(TICKET_STATUS.open);
    // Switched off, they do not get in the way of the other tests.
    for (const r of [a.body.data, b.body.data])
      await call('DELETE', `/api/automation/rules/${r.id}`, { token: admin.token });
  });

  it('AUTOMATION a dry run lists the recent tickets the rule would have matched and saves nothing', async () => {
    const yes = `4917${Date.now() % 1e8}`;
    const no = `4918${Date.now() % 1e8}`;
    expect((await waPost(s.url, waText(yes, 'Yes', 'I need a refund for my order'))).status).toBe(200);
    expect((await waPost(s.url, waText(no, 'No', 'Just saying hello'))).status).toBe(200);
    const tYes = await waitFor(() => ticketOfPeer(yes), 'the refund ticket');
    const tNo = await waitFor(() => ticketOfPeer(no), 'the hello ticket');
    await settled();
    const rulesBefore = await db().selectFrom('automation_rules').select('id').execute();
    const dry = await call('POST', '/api/automation/dry-run', { token: admin.token, body: refundRule() });
    expect(dry.status, dry.text).toBe(200);
    const ids = dry.body.data.tickets.map((t: { id: number }) => t.id);
    expect(ids).toContain(Number(tYes.id));
    expect(ids).not.toContain(Number(tNo.id));
    expect(dry.body.data.tickets[0]).toMatchObject({
      channel: 'WHATSAPP',
      matched: ['Text contains "refund"', 'Channel is WHATSAPP'],
    });
    expect(dry.body.data.checked).toBeGreaterThanOrEqual(2);
    expect(await db().selectFrom('automation_rules').select('id').execute()).toEqual(rulesBefore);
  });

  it('AUTOMATION bad input: an unknown field, condition or action, or a missing label is a clear 400 and saves nothing', async () => {
    const before = await db().selectFrom('automation_rules').selectAll().orderBy('id').execute();
    const good = refundRule();
    const cases: [unknown, RegExp][] = [
      [{ ...good, colour: 'red' }, /colour/],
      [{ ...good, conditions: [{ field: 'channel', in: ['WHATSAPP'], sometimes: true }] }, /sometimes/],
      [{ ...good, conditions: [{ field: 'mood', is: 'angry' }] }, /./],
      [{ ...good, actions: [{ type: 'webhook', url: 'https://example.com/hook' }] }, /./],
      [{ ...good, actions: [{ type: 'priority', priority: 'H', later: 1 }] }, /later/],
      [{ ...good, actions: [{ type: 'add_labels', labels: [987654321] }] }, /987654321/],
      [{ ...good, actions: [{ type: 'department', department_id: 987654321 }] }, /987654321/],
      [{ ...good, actions: [{ type: 'webhook', webhook_id: 987654321 }] }, /Unknown webhook: 987654321/],
      [{ ...good, conditions: [{ field: 'rating', at_most: 2 }] }, /CSAT/],
      [{ ...good, actions: [] }, /at least one action/],
    ];
    for (const [body, says] of cases) {
      const r = await call('POST', '/api/automation/rules', { token: admin.token, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body).toMatchObject({ result: 'failed', code: expect.any(String) });
      expect(r.body.description, JSON.stringify(body)).toMatch(says);
    }
    expect((await call('POST', '/api/automation/rules', { token: agent.token, body: good })).status).toBe(403);
    const rule = before[0];
    if (rule) {
      const r = await call('PUT', `/api/automation/rules/${rule.id}`, {
        token: admin.token,
        body: { ...good, actions: [{ type: 'reboot' }] },
      });
      expect(r.status).toBe(400);
    }
    const order = await call('PUT', '/api/automation/rules/order', {
      token: admin.token,
      body: { ids: [987_654_321] },
    });
    expect(order.status).toBe(400);
    expect(order.body.description).toBe(AUTOMATION_STRINGS.badOrder);
    expect(await db().selectFrom('automation_rules').selectAll().orderBy('id').execute()).toEqual(before);
  });

  it('AUTOMATION rules run in the stated order, which admins change', async () => {
    const list = await call('GET', '/api/automation/rules', { token: admin.token });
    expect(list.status).toBe(200);
    const ids: number[] = list.body.data.map((r: { id: number }) => r.id);
    expect(ids.length).toBeGreaterThanOrEqual(1);
    const mk = await call('POST', '/api/automation/rules', {
      token: admin.token,
      body: { name: `Last ${uniq()}`, event: 'ticket_created', actions: [{ type: 'priority', priority: 'L' }] },
    });
    expect(mk.status, mk.text).toBe(200);
    const reversed = [mk.body.data.id, ...ids.reverse()];
    const r = await call('PUT', '/api/automation/rules/order', { token: admin.token, body: { ids: reversed } });
    expect(r.status, r.text).toBe(200);
    const again = await call('GET', '/api/automation/rules', { token: admin.token });
    expect(again.body.data.map((x: { id: number }) => x.id)).toEqual(reversed);
    expect(again.body.data.map((x: { position: number }) => x.position)).toEqual(reversed.map((_, i) => i + 1));
    expect((await call('DELETE', `/api/automation/rules/${mk.body.data.id}`, { token: admin.token })).status).toBe(200);
    expect((await call('DELETE', `/api/automation/rules/${mk.body.data.id}`, { token: admin.token })).status).toBe(404);
  });

  it('AUTOMATION the loop guard forgets chains older than delivered events are kept, and only those', async () => {
    const admin = await signUpVia(call);
    const day = 24 * 3600 * 1000;
    const base = 9_000_000_000 + Math.floor(Math.random() * 1_000_000) * 10;
    const rows = [
      { event_id: base + 1, account_id: admin.accountId, chain: '[1]', created_at: Date.now() - 4 * day },
      { event_id: base + 2, account_id: admin.accountId, chain: '[1]', created_at: Date.now() - 2 * day },
    ];
    await db().insertInto('automation_chains').values(rows).execute();
    await pruneAutomationChains(db(), 3).run(Date.now());
    const left = await db()
      .selectFrom('automation_chains')
      .select('event_id')
      .where('account_id', '=', admin.accountId)
      .execute();
    expect(left.map((r) => Number(r.event_id))).toEqual([base + 2]);
  });
});

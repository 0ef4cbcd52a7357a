import { AUTOMATION_STRINGS, WEBHOOK_HEADERS } from '@parley/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountRows } from '../../testing/accountRows.js';
import { apiClient, type Call, uniq } from '../../testing/api.js';
import { connectVisitor, liveChatAccount, nextVisitorIp } from '../../testing/livechat.js';
import { dialects, startTestServer } from '../../testing/support.js';
import { waitFor } from '../../testing/waitFor.js';
import { startWebhookReceiver } from '../../testing/webhookReceiver.js';
import { signWebhook } from '../integrations/index.js';

/** Rules on "Live chat queued": a waiting chat has no ticket; the rule reads the chat and acts on it. */
describe.each(dialects)('automation on live chats queued (%s)', (dialect) => {
  let s: Awaited<ReturnType<typeof startTestServer>>;
  let rx: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let call: Call;
  const opened: { close(): void }[] = [];
  const db = () => s.handle.db;
  const { department } = accountRows(db, () => ({ channel: 'LIVECHAT' }));

  beforeAll(async () => {
    rx = await startWebhookReceiver();
    s = await startTestServer(dialect, { WEBHOOK_ALLOWED_HOSTS: rx.host, TRUST_PROXY: 'true' });
    call = apiClient(s.url);
  }, 60_000);
  afterAll(async () => {
    for (const o of opened) o.close();
    await s?.stop();
    await rx?.close();
  });

  /** A visitor of the account's link who fills in the form and joins the queue. */
  const queueChat = async (token: string, message: string, page = '') => {
    const ip = nextVisitorIp();
    const info = await call('POST', '/api/livechat/info', { body: { token }, headers: { 'x-forwarded-for': ip } });
    expect(info.status, info.text).toBe(200);
    const csrf = info.body.csrf as string;
    const socket = await connectVisitor(s.url, token, csrf, opened, ip);
    const name = `Visitor ${uniq()}`;
    const r = await socket.emitWithAck('registerQueue', {
      token,
      csrf,
      name,
      phone: '0123',
      email: `${name.replace(/\W/g, '')}@example.com`,
      message,
      page,
    });
    expect(r.ok, JSON.stringify(r)).toBe(true);
    const chat = await db()
      .selectFrom('livechats')
      .selectAll()
      .where('name', '=', name)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    return { id: Number(chat.id), name };
  };
  const runsOf = (ruleId: number) =>
    db().selectFrom('automation_runs').selectAll().where('rule_id', '=', ruleId).orderBy('id').execute();
  const notificationsOf = (userId: number) =>
    db().selectFrom('notifications').selectAll().where('user_id', '=', userId).orderBy('id').execute();
  const queuedEvent = async (accountId: number, chatId: number) =>
    (
      await db()
        .selectFrom('events')
        .select(['id', 'payload'])
        .where('account_id', '=', accountId)
        .where('type', '=', 'livechat.queued')
        .execute()
    ).find((e) => (JSON.parse(e.payload) as { livechat_id: number }).livechat_id === chatId)!;
  const settled = (accountId: number) =>
    waitFor(
      async () =>
        (
          await db()
            .selectFrom('events')
            .select('id')
            .where('account_id', '=', accountId)
            .where('delivered_at', 'is', null)
            .execute()
        ).length === 0,
      'every event delivered',
      60_000,
    );

  it('AUTOMATION a queued live chat whose first message says "pricing" notifies the agent and calls the webhook once, even delivered twice; other chats and other accounts run nothing', async () => {
    const a = await liveChatAccount(call, db(), 1);
    const agent = a.agents[0]!;
    const sales = await department(a.admin.accountId, 'Sales');
    await db()
      .updateTable('users')
      .set({ departments: JSON.stringify([sales]) })
      .where('id', '=', a.admin.userId)
      .execute();
    const hook = await call('POST', '/api/webhooks', {
      token: a.admin.token,
      body: { url: `http://${rx.host}/chat-${a.admin.accountId}`, events: ['ticket.rated'] },
    });
    expect(hook.status, hook.text).toBe(200);
    const made = await call('POST', '/api/automation/rules', {
      token: a.admin.token,
      body: {
        name: 'Pricing chats',
        event: 'livechat_queued',
        conditions: [
          { field: 'text', contains: 'pricing' },
          { field: 'page', contains: '/plans' },
        ],
        actions: [
          { type: 'notify', users: [agent.username], text: 'A visitor asks about pricing: {{customer.name}}' },
          { type: 'notify_department', department_id: sales, text: 'Sales lead waiting' },
          { type: 'webhook', webhook_id: hook.body.data.id },
          { type: 'department', department_id: sales },
        ],
      },
    });
    expect(made.status, made.text).toBe(200);
    const ruleId = made.body.data.id as number;

    // Another account's chat saying the same words never runs this account's rule.
    const other = await liveChatAccount(call, db(), 1);
    await queueChat(other.token, 'What is your PRICING?', 'https://other.example/plans');
    await settled(other.admin.accountId);

    // This account's chat that does not say it, or was started on another page: no run.
    await queueChat(a.token, 'Hello, I need help with my order', 'https://shop.example/plans');
    await queueChat(a.token, 'Your pricing please', 'https://shop.example/help');
    await settled(a.admin.accountId);
    expect(await runsOf(ruleId)).toHaveLength(0);

    const chat = await queueChat(
      a.token,
      'Hi, a question about PRICING for 20 seats',
      'https://shop.example/plans?x=1',
    );
    await waitFor(async () => (await runsOf(ruleId)).length === 1, 'the run');
    await settled(a.admin.accountId);
    const [run] = await runsOf(ruleId);
    expect(run).toMatchObject({
      outcome: 'applied',
      event: 'livechat_queued',
      ticket_id: 0,
      ticket_number: 0,
    });
    expect(Number(run!.livechat_id)).toBe(chat.id);
    expect(JSON.parse(run!.matched)).toEqual(['Text contains "pricing"', 'Page address contains "/plans"']);
    expect(JSON.parse(run!.did)).toEqual([
      'Notify users: 1',
      'Notify a department: 1',
      'Call a webhook',
      'Assign to a department',
    ]);
    const told = await notificationsOf(agent.id);
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({
      channel: 'livechat',
      category: 'system',
      title: `Pricing chats: ${chat.name}`,
      body: `A visitor asks about pricing: ${chat.name}`,
    });
    expect(await notificationsOf(a.admin.userId)).toHaveLength(1);
    const moved = await db()
      .selectFrom('livechats')
      .select('department_id')
      .where('id', '=', chat.id)
      .executeTakeFirst();
    expect(Number(moved!.department_id)).toBe(sales);

    const path = `/chat-${a.admin.accountId}`;
    const got = await waitFor(() => rx.got.find((r) => r.path === path), 'the webhook delivery');
    const body = JSON.parse(got.body);
    expect(body).toMatchObject({
      event: 'automation.rule',
      accountId: a.admin.accountId,
      data: {
        rule: { id: ruleId, name: 'Pricing chats' },
        trigger: 'livechat_queued',
        livechat: {
          id: chat.id,
          name: chat.name,
          message: 'Hi, a question about PRICING for 20 seats',
          page: 'https://shop.example/plans?x=1',
        },
      },
    });
    expect(body.data.ticket).toBeUndefined();
    const stamp = String(got.headers[WEBHOOK_HEADERS.timestamp]);
    expect(got.headers[WEBHOOK_HEADERS.signature]).toBe(signWebhook(hook.body.secret, stamp, got.body));

    // The relay delivers the same event again with its receipt lost: still one run, one notification, one call.
    const event = await queuedEvent(a.admin.accountId, chat.id);
    await db().deleteFrom('event_receipts').where('event_id', '=', event.id).execute();
    await db()
      .updateTable('events')
      .set({ delivered_at: null, attempts: 0, lease_owner: null, lease_until: null, available_at: Date.now() })
      .where('id', '=', event.id)
      .execute();
    await waitFor(
      async () =>
        (await db().selectFrom('events').select('delivered_at').where('id', '=', event.id).executeTakeFirstOrThrow())
          .delivered_at !== null,
      'the event delivered again',
    );
    await settled(a.admin.accountId);
    expect(await runsOf(ruleId)).toHaveLength(1);
    expect(await notificationsOf(agent.id)).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 300));
    expect(rx.got.filter((r) => r.path === path)).toHaveLength(1);
    // Nothing ever ran for the other account.
    expect(
      await db().selectFrom('automation_runs').select('id').where('account_id', '=', other.admin.accountId).execute(),
    ).toEqual([]);
    expect(await notificationsOf(other.agents[0]!.id)).toEqual([]);

    // The run log over HTTP names the chat.
    const log = await call('GET', `/api/automation/runs?rule_id=${ruleId}`, { token: a.admin.token });
    expect(log.status).toBe(200);
    expect(log.body.data[0]).toMatchObject({ livechat_id: chat.id, ticket_id: 0, event: 'livechat_queued' });

    // A dry run lists the recent chats it would have matched (the matching one, not the others).
    const dry = await call('POST', '/api/automation/dry-run', {
      token: a.admin.token,
      body: {
        name: 'Pricing chats',
        event: 'livechat_queued',
        conditions: [
          { field: 'text', contains: 'pricing' },
          { field: 'page', contains: '/plans' },
        ],
        actions: [{ type: 'notify', users: [agent.username], text: 'x' }],
      },
    });
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body.data.tickets).toEqual([]);
    expect(dry.body.data.chats.map((c: { id: number }) => c.id)).toEqual([chat.id]);
    expect(dry.body.data.checked).toBe(3);
  });

  it('AUTOMATION a live chat taken before its rule runs is not moved, and the run says so', async () => {
    const a = await liveChatAccount(call, db(), 1);
    const support = await department(a.admin.accountId, 'Support');
    const made = await call('POST', '/api/automation/rules', {
      token: a.admin.token,
      body: {
        name: 'Route',
        event: 'livechat_queued',
        conditions: [{ field: 'customer', attribute: 'email', op: 'contains', value: '@example.com' }],
        actions: [{ type: 'department', department_id: support }],
      },
    });
    expect(made.status, made.text).toBe(200);
    // The rule ran once; then the chat is taken and the same event is handed to the rules again (as after a
    // crash before the receipt): the chat is no longer waiting, so it is not moved.
    const chat = await queueChat(a.token, 'Hello');
    await waitFor(async () => (await runsOf(made.body.data.id)).length === 1, 'the run');
    await settled(a.admin.accountId);
    const event = await queuedEvent(a.admin.accountId, chat.id);
    await db().deleteFrom('automation_runs').where('rule_id', '=', made.body.data.id).execute();
    await db()
      .updateTable('livechats')
      .set({ state: 'chatting', department_id: null })
      .where('id', '=', chat.id)
      .execute();
    await db().deleteFrom('event_receipts').where('event_id', '=', event.id).execute();
    await db()
      .updateTable('events')
      .set({ delivered_at: null, attempts: 0, lease_owner: null, lease_until: null, available_at: Date.now() })
      .where('id', '=', event.id)
      .execute();
    await waitFor(async () => (await runsOf(made.body.data.id)).length === 1, 'the run again');
    await settled(a.admin.accountId);
    const [run] = await runsOf(made.body.data.id);
    expect(run!.outcome).toBe('no_change');
    expect(JSON.parse(run!.did)).toEqual([`Assign to a department: ${AUTOMATION_STRINGS.chatTaken}`]);
    const after = await db()
      .selectFrom('livechats')
      .select('department_id')
      .where('id', '=', chat.id)
      .executeTakeFirst();
    expect(after!.department_id).toBeNull();
  });

  it('AUTOMATION bad input: a "Live chat queued" rule with a ticket condition or action, or a page condition on a ticket event, is a clear 400 and saves nothing', async () => {
    const a = await liveChatAccount(call, db(), 1);
    const before = await db()
      .selectFrom('automation_rules')
      .selectAll()
      .where('account_id', '=', a.admin.accountId)
      .execute();
    const notify = { type: 'notify', users: [a.agents[0]!.username], text: 'Hi' };
    const cases: [unknown, string][] = [
      [
        { name: 'x', event: 'livechat_queued', conditions: [{ field: 'priority', in: ['H'] }], actions: [notify] },
        AUTOMATION_STRINGS.conditionNotFor('Priority', 'Live chat queued'),
      ],
      [
        {
          name: 'x',
          event: 'livechat_queued',
          conditions: [{ field: 'labels', has: 'any', labels: [1] }],
          actions: [notify],
        },
        AUTOMATION_STRINGS.conditionNotFor('Labels', 'Live chat queued'),
      ],
      [
        {
          name: 'x',
          event: 'livechat_queued',
          conditions: [{ field: 'channel', in: ['LIVECHAT'] }],
          actions: [notify],
        },
        AUTOMATION_STRINGS.conditionNotFor('Channel', 'Live chat queued'),
      ],
      [
        { name: 'x', event: 'livechat_queued', actions: [notify, { type: 'priority', priority: 'H' }] },
        AUTOMATION_STRINGS.actionNotFor('Set priority', 'Live chat queued'),
      ],
      [
        { name: 'x', event: 'livechat_queued', actions: [{ type: 'reply', text: 'Hello' }] },
        AUTOMATION_STRINGS.actionNotFor('Send a reply', 'Live chat queued'),
      ],
      [
        { name: 'x', event: 'livechat_queued', actions: [{ type: 'auto_assign', strategy: 'round_robin' }] },
        AUTOMATION_STRINGS.actionNotFor('Assign automatically', 'Live chat queued'),
      ],
      [
        { name: 'x', event: 'livechat_queued', conditions: [{ field: 'rating', at_most: 2 }], actions: [notify] },
        AUTOMATION_STRINGS.ratingOnlyOnCsat,
      ],
      [
        { name: 'x', event: 'ticket_created', conditions: [{ field: 'page', contains: '/plans' }], actions: [notify] },
        AUTOMATION_STRINGS.conditionNotFor('Page address contains', 'Ticket created'),
      ],
      [
        {
          name: 'x',
          event: 'livechat_queued',
          actions: [{ type: 'notify_department', department_id: 987654321, text: 'x' }],
        },
        AUTOMATION_STRINGS.unknownDepartment(987654321),
      ],
    ];
    for (const [body, says] of cases) {
      for (const path of ['/api/automation/rules', '/api/automation/dry-run']) {
        const r = await call('POST', path, { token: a.admin.token, body });
        expect(r.status, `${path} ${JSON.stringify(body)}`).toBe(400);
        expect(r.body.description).toBe(says);
      }
    }
    const page = await call('POST', '/api/automation/rules', {
      token: a.admin.token,
      body: { name: 'x', event: 'livechat_queued', conditions: [{ field: 'page', contains: '' }], actions: [notify] },
    });
    expect(page.status).toBe(400);
    expect(
      await db().selectFrom('automation_rules').selectAll().where('account_id', '=', a.admin.accountId).execute(),
    ).toEqual(before);
  });
});

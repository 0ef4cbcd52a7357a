import { randomBytes } from 'node:crypto';
import { CHANNEL_STRINGS } from '@parley/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUserVia, apiClient, type Call, type SignedUp, signUpVia, uniq } from '../../testing/api.js';
import { channelProbe } from '../../testing/channelProbe.js';
import {
  startTelegramStandIn,
  startWhatsAppStandIn,
  tgText,
  waText,
  whatsappWebhook,
} from '../../testing/channelStandIns.js';
import { dialects, startTestServer } from '../../testing/support.js';
import { waitFor } from '../../testing/waitFor.js';

const KEY = randomBytes(32).toString('base64');
const PHONE_ID = '106540352242922';
const WA = { accessToken: 'EAAG-test-token', appSecret: 'app-secret-1234' };
const TG_TOKEN = '123456789:AAFakeBotTokenForTheStandIn_0123456789';

describe.each(dialects)('messaging channels (%s)', (dialect) => {
  let s: Awaited<ReturnType<typeof startTestServer>>;
  let wa: Awaited<ReturnType<typeof startWhatsAppStandIn>>;
  let tg: Awaited<ReturnType<typeof startTelegramStandIn>>;
  let call: Call;
  let admin: SignedUp;
  let agent: { token: string };
  let waId: number;
  let waKey: string;
  const db = () => s.handle.db;

  const post = (path: string, body: string, headers: Record<string, string>) =>
    fetch(`${s.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const waPost = (value: Record<string, unknown>, opts: { secret?: string; key?: string; phoneId?: string } = {}) => {
    const w = whatsappWebhook(opts.secret ?? WA.appSecret, value, opts.phoneId ?? PHONE_ID);
    return post(`/api/channels/webhook/${opts.key ?? waKey}`, w.body, { 'x-hub-signature-256': w.signature });
  };
  const { ticketOfPeer, messagesOf, webhookEvents } = channelProbe(db, () => admin.accountId);
  const reply = (ticketId: number, message: string) =>
    call('POST', '/api/ticket/message', { token: agent.token, body: { ticket_id: ticketId, message } });
  const deliveryOf = async (messageId: number) =>
    (
      await db()
        .selectFrom('messages')
        .select(['delivery_state', 'delivery_error'])
        .where('id', '=', messageId)
        .executeTakeFirstOrThrow()
    ).delivery_state;
  /** A customer writes; answers their ticket once stored. */
  const customerWrites = async (peer: string, name: string, text: string) => {
    expect((await waPost(waText(peer, name, text))).status).toBe(200);
    return waitFor(() => ticketOfPeer(peer), `the ticket of ${peer}`);
  };

  beforeAll(async () => {
    wa = await startWhatsAppStandIn({ phoneNumberId: PHONE_ID, accessToken: WA.accessToken });
    tg = await startTelegramStandIn({ token: TG_TOKEN });
    s = await startTestServer(dialect, {
      SECRETS_KEY: KEY,
      PUBLIC_URL: 'https://parley.example',
      WHATSAPP_API_URL: wa.url,
      TELEGRAM_API_URL: tg.url,
    });
    call = apiClient(s.url);
    admin = await signUpVia(call);
    agent = await addUserVia(call, admin.token, { username: `agent-${uniq()}`, type: 'agent', name: 'Bo' });
    const made = await call('POST', '/api/channels', {
      token: admin.token,
      body: { name: 'Support WhatsApp', settings: { kind: 'whatsapp', phoneNumberId: PHONE_ID, ...WA } },
    });
    expect(made.status).toBe(200);
    waId = made.body.data.id;
    waKey = made.body.data.webhookUrl.split('/').at(-1);
  }, 60_000);
  afterAll(async () => {
    await s?.stop();
    await wa?.close();
    await tg?.close();
  });

  it('CHANNEL an admin connects a WhatsApp number: no secret is ever answered; agents may not; a bad body changes nothing', async () => {
    const list = await call('GET', '/api/channels', { token: admin.token });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ configured: true, allowed: ['whatsapp', 'messenger', 'x'] });
    const view = list.body.data.find((c: { id: number }) => c.id === waId);
    expect(view).toMatchObject({
      kind: 'whatsapp',
      channel: 'WHATSAPP',
      settings: { phoneNumberId: PHONE_ID },
      hasToken: true,
      hasAppSecret: true,
    });
    expect(view.webhookUrl).toMatch(/^https:\/\/parley\.example\/api\/channels\/webhook\/[A-Za-z0-9_-]{32}$/);
    expect(view.verifyToken).toMatch(/^[0-9a-f]{48}$/);
    expect(list.text).not.toContain(WA.accessToken);
    expect(list.text).not.toContain(WA.appSecret);
    const row = await db()
      .selectFrom('channel_connections')
      .selectAll()
      .where('id', '=', waId)
      .executeTakeFirstOrThrow();
    expect(row.secrets).not.toContain(WA.accessToken);

    expect((await call('GET', '/api/channels', { token: agent.token })).status).toBe(403);
    const before = (await db().selectFrom('channel_connections').select('id').execute()).length;
    for (const body of [
      { name: '', settings: { kind: 'whatsapp', phoneNumberId: PHONE_ID, ...WA } },
      { name: 'x', settings: { kind: 'whatsapp', phoneNumberId: 'abc', ...WA } },
      { name: 'x', settings: { kind: 'whatsapp', phoneNumberId: PHONE_ID, accessToken: WA.accessToken } },
      { name: 'x', settings: { kind: 'sms' } },
      { name: 'x', departmentId: 999999, settings: { kind: 'whatsapp', phoneNumberId: PHONE_ID, ...WA } },
    ]) {
      const r = await call('POST', '/api/channels', { token: admin.token, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.description).toBeTruthy();
    }
    expect((await db().selectFrom('channel_connections').select('id').execute()).length).toBe(before);
    // A Telegram bot needs the Pro plan: a trial is told which plan has it.
    const tgOnTrial = await call('POST', '/api/channels', {
      token: admin.token,
      body: { name: 'Bot', settings: { kind: 'telegram', botToken: TG_TOKEN } },
    });
    expect(tgOnTrial.status).toBe(403);
    expect(tgOnTrial.body.description).toBe(
      'Your trial does not include Telegram. Pro has it: upgrade on the Plans page.',
    );
    // The provider cannot change on an edit.
    const kind = await call('PUT', `/api/channels/${waId}`, {
      token: admin.token,
      body: { name: 'x', settings: { kind: 'telegram', botToken: TG_TOKEN } },
    });
    expect(kind.body.description).toBe(CHANNEL_STRINGS.kindFixed);
  });

  it('CHANNEL the connection test asks the number its name with the stored token', async () => {
    const t = await call('POST', `/api/channels/${waId}/test`, { token: admin.token });
    expect(t.body.data).toEqual({ ok: true, response: CHANNEL_STRINGS.testOk('Acme Support, +1 555-0100') });
  });

  it("CHANNEL WhatsApp's handshake echoes the challenge for the right verify token only", async () => {
    const view = (await call('GET', '/api/channels', { token: admin.token })).body.data[0];
    const ok = await fetch(
      `${s.url}/api/channels/webhook/${waKey}?hub.mode=subscribe&hub.verify_token=${view.verifyToken}&hub.challenge=1158201444`,
    );
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('1158201444');
    const wrong = await fetch(
      `${s.url}/api/channels/webhook/${waKey}?hub.mode=subscribe&hub.verify_token=nope&hub.challenge=1`,
    );
    expect(wrong.status).toBe(403);
  });

  it('WHATSAPP a signed message makes a ticket with the customer; the same webhook five times makes one message', async () => {
    const peer = `1650555${String(Date.now()).slice(-4)}`;
    const value = waText(peer, 'Kerry Fisher', 'My order has not arrived');
    const w = whatsappWebhook(WA.appSecret, value, PHONE_ID);
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        post(`/api/channels/webhook/${waKey}`, w.body, { 'x-hub-signature-256': w.signature }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    const t = await waitFor(() => ticketOfPeer(peer), 'the ticket');
    expect(t).toMatchObject({
      channel: 'WHATSAPP',
      name: 'Kerry Fisher',
      phone: `+${peer}`,
      title: 'My order has not arrived',
    });
    expect(Number(t.channel_connection_id)).toBe(waId);
    // The customer is a contact, found again by their WhatsApp number.
    const contact = await db()
      .selectFrom('contact_identifiers')
      .select('contact_id')
      .where('account_id', '=', admin.accountId)
      .where('kind', '=', 'whatsapp')
      .where('value', '=', `+${peer}`)
      .executeTakeFirst();
    expect(Number(t.contact_id)).toBe(Number(contact?.contact_id));
    await waitFor(async () => {
      const events = await db()
        .selectFrom('events')
        .select('delivered_at')
        .where('account_id', '=', admin.accountId)
        .where('type', '=', 'channel.webhook_received')
        .execute();
      return events.every((e) => e.delivered_at !== null);
    }, 'every webhook handled');
    const ms = await messagesOf(Number(t.id));
    // A plain text message ('text'): a MIME type would make clients show it as a file of that type.
    expect(ms.map((m) => [m.type, m.message, m.sender, m.sender_name])).toEqual([
      ['text', 'My order has not arrived', 'visitor', 'Kerry Fisher'],
    ]);
    // The next message joins the same ticket.
    await waPost(waText(peer, 'Kerry Fisher', 'Order 5521'));
    await waitFor(async () => (await messagesOf(Number(t.id))).length === 2, 'the second message');
  });

  it('WHATSAPP bad input: a wrong signature, an unsigned, malformed or oversized body, an unknown key: refused, nothing written', async () => {
    const count = webhookEvents;
    const before = await count();
    const value = waText('16505550000', 'Eve', 'forged');
    expect((await waPost(value, { secret: 'not-the-secret' })).status).toBe(401);
    const w = whatsappWebhook(WA.appSecret, value, PHONE_ID);
    expect((await post(`/api/channels/webhook/${waKey}`, w.body, {})).status).toBe(401);
    const bad = '{"object": "whatsapp_business_account", "entry": [';
    const badSig = whatsappWebhook(WA.appSecret, {}, PHONE_ID);
    const forged = `sha256=${(await import('node:crypto')).createHmac('sha256', WA.appSecret).update(bad).digest('hex')}`;
    const malformed = await post(`/api/channels/webhook/${waKey}`, bad, { 'x-hub-signature-256': forged });
    expect(malformed.status).toBe(400);
    expect((await malformed.json()).description).toBe(CHANNEL_STRINGS.badPayload);
    const big = await post(`/api/channels/webhook/${waKey}`, `{"x":"${'a'.repeat(1_100_000)}"}`, {
      'x-hub-signature-256': badSig.signature,
    });
    expect(big.status).toBe(413);
    expect((await waPost(value, { key: 'unknownkey-unknownkey-unknownkey' })).status).toBe(404);
    // Another number of the business account, and an event type we do not read: taken, nothing stored.
    const other = await waPost(value, { phoneId: '999' });
    expect(other.status).toBe(200);
    expect((await other.json()).taken).toBe(0);
    expect(await count()).toBe(before);
    expect(await ticketOfPeer('16505550000')).toBeUndefined();
  });

  it('WHATSAPP an agent reply reaches the API in its shape; sent, then delivered and read by the statuses, never back', async () => {
    const peer = `1415555${String(Date.now()).slice(-4)}`;
    const t = await customerWrites(peer, 'Ana', 'Hello?');
    const r = await reply(Number(t.id), 'Hi Ana, how can I help?');
    expect(r.status).toBe(200);
    const id = r.body.data.id as number;
    expect(r.body.data.delivery).toEqual({ state: 'sending' });
    const out = await waitFor(() => wa.sent.find((x) => x.body?.to === peer), 'the send');
    expect(out.body).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: peer,
      type: 'text',
      text: { body: 'Hi Ana, how can I help?', preview_url: false },
    });
    expect(out.headers.authorization).toBe(`Bearer ${WA.accessToken}`);
    await waitFor(async () => (await deliveryOf(id)) === 'sent', 'sent');
    const wamid = (
      await db()
        .selectFrom('channel_message_ids')
        .select('provider_id')
        .where('message_row_id', '=', id)
        .executeTakeFirstOrThrow()
    ).provider_id;
    const status = (state: string) => ({
      statuses: [{ id: wamid, status: state, timestamp: String(Math.floor(Date.now() / 1000)), recipient_id: peer }],
    });
    await waPost(status('read'));
    await waitFor(async () => (await deliveryOf(id)) === 'read', 'read');
    // Late and out of order: delivered after read, and a failure after read, change nothing.
    await waPost(status('delivered'));
    await waPost(status('failed'));
    await waPost(waText(peer, 'Ana', 'sentinel'));
    await waitFor(async () => (await messagesOf(Number(t.id))).some((m) => m.message === 'sentinel'), 'the sentinel');
    expect(await deliveryOf(id)).toBe('read');
  });

  it('WHATSAPP a refusal fails the reply with the provider words; Retry sends it again; trouble is retried by itself', async () => {
    const peer = `1212555${String(Date.now()).slice(-4)}`;
    const t = await customerWrites(peer, 'Rob', 'Hi');
    wa.script.next.push({
      status: 400,
      body: { error: { message: 'Recipient phone number not in allowed list', type: 'OAuthException', code: 131030 } },
    });
    const id = (await reply(Number(t.id), 'First try')).body.data.id as number;
    await waitFor(async () => (await deliveryOf(id)) === 'failed', 'failed');
    const row = await db()
      .selectFrom('messages')
      .select('delivery_error')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.delivery_error).toBe('(#131030) Recipient phone number not in allowed list');
    const shown = await call('GET', `/api/ticket/data3/${t.id}/0`, { token: agent.token });
    expect(shown.body.data.find((m: { id: number }) => m.id === id).delivery).toEqual({
      state: 'failed',
      error: '(#131030) Recipient phone number not in allowed list',
    });
    // The admins' failed-deliveries list shows it with the provider's words; agents may not read the list.
    const failed = await call('GET', '/api/deliveries/failed', { token: admin.token });
    expect(failed.status, failed.text).toBe(200);
    expect(failed.body.data.find((d: { id: number }) => d.id === id)).toMatchObject({
      ticketId: Number(t.id),
      kind: 'channel',
      channel: 'WHATSAPP',
      text: 'First try',
      error: '(#131030) Recipient phone number not in allowed list',
    });
    expect((await call('GET', '/api/deliveries/failed', { token: agent.token })).status).toBe(403);
    expect((await call('GET', '/api/deliveries/failed?before=x', { token: admin.token })).status).toBe(400);
    const again = await call('POST', '/api/channels/message/retry', { token: agent.token, body: { id } });
    expect(again.body.data).toMatchObject({ state: 'sending' });
    await waitFor(async () => (await deliveryOf(id)) === 'sent', 'sent after retry');
    // Sent: it leaves the list.
    const after = await call('GET', '/api/deliveries/failed', { token: admin.token });
    expect(after.body.data.some((d: { id: number }) => d.id === id)).toBe(false);
    expect((await call('POST', '/api/channels/message/retry', { token: agent.token, body: { id } })).status).toBe(409);
    // A 500 is worth trying again: the relay does, and the reply goes.
    wa.script.next.push({ status: 500, body: { error: { message: 'Service temporarily unavailable', code: 2 } } });
    const second = (await reply(Number(t.id), 'Second')).body.data.id as number;
    await waitFor(async () => (await deliveryOf(second)) === 'sent', 'sent after a retry', 20_000);
    expect(wa.sent.filter((x) => x.body?.text?.body === 'Second')).toHaveLength(2);
  });

  it('WHATSAPP outside the 24-hour window a reply fails saying why; a template goes', async () => {
    const peer = `1303555${String(Date.now()).slice(-4)}`;
    const t = await customerWrites(peer, 'Old', 'Yesterday');
    await db()
      .updateTable('tickets')
      .set({ last_message_at: Date.now() - 25 * 3600_000 })
      .where('id', '=', Number(t.id))
      .execute();
    const w = await call('GET', `/api/channels/window/${t.id}`, { token: agent.token });
    expect(w.body.data.open).toBe(false);
    const id = (await reply(Number(t.id), 'Are you there?')).body.data.id as number;
    await waitFor(async () => (await deliveryOf(id)) === 'failed', 'failed');
    expect(wa.sent.some((x) => x.body?.text?.body === 'Are you there?')).toBe(false);
    const row = await db()
      .selectFrom('messages')
      .select('delivery_error')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.delivery_error).toBe(CHANNEL_STRINGS.windowClosed);
    const bad = await call('POST', '/api/channels/template', {
      token: agent.token,
      body: { ticketId: Number(t.id), template: 'Hello World', language: 'en_US' },
    });
    expect(bad.status).toBe(400);
    const ok = await call('POST', '/api/channels/template', {
      token: agent.token,
      body: { ticketId: Number(t.id), template: 'order_update', language: 'en_US' },
    });
    expect(ok.status).toBe(200);
    const out = await waitFor(
      () => wa.sent.find((x) => x.body?.to === peer && x.body?.type === 'template'),
      'the template',
    );
    expect(out.body.template).toEqual({ name: 'order_update', language: { code: 'en_US' } });
    const stored = (await messagesOf(Number(t.id))).at(-1)!;
    expect([stored.type, stored.message]).toEqual(['text', CHANNEL_STRINGS.templateSent('order_update', 'en_US')]);
  });

  it('WHATSAPP an image is fetched from the API and attached', async () => {
    const peer = `1404555${String(Date.now()).slice(-4)}`;
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
      'base64',
    );
    wa.media.set('1037543291543636', { bytes: png, mime: 'image/png' });
    await waPost({
      contacts: [{ profile: { name: 'Pia' }, wa_id: peer }],
      messages: [
        {
          from: peer,
          id: `wamid.img${uniq()}`,
          timestamp: String(Math.floor(Date.now() / 1000)),
          type: 'image',
          image: { id: '1037543291543636', mime_type: 'image/png', caption: 'The broken part', sha256: 'x' },
        },
      ],
    });
    const t = await waitFor(() => ticketOfPeer(peer), 'the ticket');
    const [m] = await waitFor(async () => {
      const ms = await messagesOf(Number(t.id));
      return ms.length ? ms : null;
    }, 'the message');
    expect(m!.message).toBe('The broken part');
    const files = JSON.parse(m!.files);
    expect(files).toHaveLength(1);
    expect(files[0].fileType).toBe('image/png');
  });

  it('TELEGRAM on Pro: a bot is connected and told where to post; updates with the secret make one message each; replies go by sendMessage', async () => {
    await db().updateTable('accounts').set({ plan: 3 }).where('id', '=', admin.accountId).execute();
    const made = await call('POST', '/api/channels', {
      token: admin.token,
      body: { name: 'Acme bot', settings: { kind: 'telegram', botToken: TG_TOKEN } },
    });
    expect(made.status).toBe(200);
    expect(made.body.data.verifyToken).toBeNull();
    const test = await call('POST', `/api/channels/${made.body.data.id}/test`, { token: admin.token });
    expect(test.body.data).toEqual({ ok: true, response: CHANNEL_STRINGS.testOk('@acme_help_bot') });
    const hook = tg.webhooks.at(-1)!;
    expect(hook.url).toBe(made.body.data.webhookUrl);
    const path = new URL(hook.url).pathname;
    const chat = 5_000_000 + Math.floor(Math.random() * 1000);
    const update = JSON.stringify(tgText(900_001, chat, 'Tom', 'Bot, help'));
    expect((await post(path, update, {})).status).toBe(401);
    expect((await post(path, update, { 'x-telegram-bot-api-secret-token': 'wrong' })).status).toBe(401);
    for (let i = 0; i < 3; i++)
      expect((await post(path, update, { 'x-telegram-bot-api-secret-token': hook.secret_token })).status).toBe(200);
    const t = await waitFor(() => ticketOfPeer(String(chat)), 'the ticket');
    expect(t.channel).toBe('TELEGRAM');
    // Tom is a contact known by his Telegram chat id.
    const known = await db()
      .selectFrom('contact_identifiers')
      .select('contact_id')
      .where('kind', '=', 'telegram')
      .where('value', '=', String(chat))
      .executeTakeFirst();
    expect(known && Number(known.contact_id)).toBe(Number(t.contact_id));
    const r = await reply(Number(t.id), 'Hello Tom');
    const out = await waitFor(() => tg.sent.find((x) => x.body?.chat_id === String(chat)), 'sendMessage');
    expect(out.body).toEqual({ chat_id: String(chat), text: 'Hello Tom' });
    await waitFor(async () => (await deliveryOf(r.body.data.id)) === 'sent', 'sent');
    expect((await messagesOf(Number(t.id))).filter((m) => m.sender === 'visitor')).toHaveLength(1);
  });

  it('PLAN-20 PLAN-21 PLAN-22 PLAN-24 a channel outside the plan: refused with the message, nothing created; the list names each with the plan that has it', async () => {
    const a = await signUpVia(call);
    await db().updateTable('accounts').set({ plan: 1, account_type: 1 }).where('id', '=', a.accountId).execute();
    const rows = async () => ({
      connections: (
        await db().selectFrom('channel_connections').select('id').where('account_id', '=', a.accountId).execute()
      ).length,
      audit: (
        await db()
          .selectFrom('audit_log')
          .select('id')
          .where('account_id', '=', a.accountId)
          .where('action', 'like', 'channel.%')
          .execute()
      ).length,
    });
    const before = await rows();
    const bodies = {
      instagram: { kind: 'instagram', igAccountId: '17841400000000001', ...WA },
      line: { kind: 'line', channelSecret: '0123456789abcdef0123456789abcdef', channelAccessToken: 'x'.repeat(40) },
      telegram: { kind: 'telegram', botToken: TG_TOKEN },
      sms: {
        kind: 'sms',
        accountSid: `AC${'0'.repeat(32)}`,
        fromNumber: '+14155550100',
        authToken: 'f'.repeat(32),
      },
    } as const;
    const words = {
      instagram:
        'Your Starter plan does not include Instagram Direct Message. Basic has it: upgrade on the Plans page.',
      line: 'Your Starter plan does not include Line Direct Message. Basic has it: upgrade on the Plans page.',
      telegram: 'Your Starter plan does not include Telegram. Pro has it: upgrade on the Plans page.',
      sms: 'Your Starter plan does not include SMS. Enterprise has every channel: contact sales from the Plans page.',
    };
    for (const [kind, settings] of Object.entries(bodies)) {
      const r = await call('POST', '/api/channels', { token: a.token, body: { name: `Acme ${kind}`, settings } });
      expect(r.status, kind).toBe(403);
      expect(r.body.description, kind).toBe(words[kind as keyof typeof words]);
    }
    expect(await rows()).toEqual(before);
    const list = await call('GET', '/api/channels', { token: a.token });
    expect(list.body.allowed).toEqual(['whatsapp', 'messenger', 'x']);
    expect(list.body.notOnPlan).toEqual([
      { kind: 'instagram', description: words.instagram },
      { kind: 'telegram', description: words.telegram },
      { kind: 'line', description: words.line },
      { kind: 'sms', description: words.sms },
    ]);

    // Pro: Telegram is in; a bot connects. Back on Basic (the operator's account:update), the bot is kept
    // but may not be changed, and another is refused with Basic's words; nothing is written.
    await db().updateTable('accounts').set({ plan: 3 }).where('id', '=', a.accountId).execute();
    expect((await call('GET', '/api/channels', { token: a.token })).body.notOnPlan).toEqual([
      {
        kind: 'sms',
        description:
          'Your Pro plan does not include SMS. Enterprise has every channel: contact sales from the Plans page.',
      },
    ]);
    const bot = await call('POST', '/api/channels', {
      token: a.token,
      body: { name: 'Bot', settings: bodies.telegram },
    });
    expect(bot.status, bot.text).toBe(200);
    await db().updateTable('accounts').set({ plan: 2 }).where('id', '=', a.accountId).execute();
    const kept = await rows();
    const basicWords = 'Your Basic plan does not include Telegram. Pro has it: upgrade on the Plans page.';
    const again = await call('POST', '/api/channels', {
      token: a.token,
      body: { name: 'Bot 2', settings: bodies.telegram },
    });
    expect(again.status).toBe(403);
    expect(again.body.description).toBe(basicWords);
    const edit = await call('PUT', `/api/channels/${bot.body.data.id}`, {
      token: a.token,
      body: { name: 'Renamed', settings: { kind: 'telegram' } },
    });
    expect(edit.status).toBe(403);
    expect(edit.body.description).toBe(basicWords);
    expect(await rows()).toEqual(kept);
    const still = (await call('GET', '/api/channels', { token: a.token })).body;
    expect(still.data.map((c: { name: string }) => c.name)).toEqual(['Bot']);
    expect(still.notOnPlan).toContainEqual({ kind: 'telegram', description: basicWords });
  });

  it("CHANNEL another account's connection is not found; removing one keeps its tickets", async () => {
    const other = await signUpVia(call);
    for (const [method, path] of [
      ['PUT', `/api/channels/${waId}`],
      ['DELETE', `/api/channels/${waId}`],
      ['POST', `/api/channels/${waId}/test`],
    ] as const) {
      const r = await call(method, path, {
        token: other.token,
        body: method === 'PUT' ? { name: 'x', settings: { kind: 'whatsapp', phoneNumberId: PHONE_ID } } : undefined,
      });
      expect(r.status, `${method} ${path}`).toBe(404);
    }
    expect((await call('GET', '/api/channels', { token: other.token })).body.data).toEqual([]);
    const tickets = await db().selectFrom('tickets').select('id').where('channel', '=', 'WHATSAPP').execute();
    expect((await call('DELETE', `/api/channels/${waId}`, { token: admin.token })).status).toBe(200);
    expect(await db().selectFrom('tickets').select('id').where('channel', '=', 'WHATSAPP').execute()).toHaveLength(
      tickets.length,
    );
  });
});

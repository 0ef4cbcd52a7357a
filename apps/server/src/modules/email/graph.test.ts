import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { EMAIL_STRINGS, newQueueId } from '@parley/contracts';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversationRules } from '../../app.js';
import { addUserVia, apiClient, type Call, type SignedUp, signUpVia, uniq } from '../../testing/api.js';
import { rawMail } from '../../testing/dovecot.js';
import { type GraphStandIn, startGraphStandIn } from '../../testing/graphStandIn.js';
import { dialects, startTestServer } from '../../testing/support.js';
import { waitFor } from '../../testing/waitFor.js';
import { GraphClient } from './graphClient.js';
import { GRAPH_NOTIFY_PATH } from './graphInbound.js';
import { syncGraphMailbox } from './graphSync.js';
import { Secrets } from './secrets.js';

const KEY = randomBytes(32).toString('base64');
const APP = {
  tenantId: 'contoso.onmicrosoft.com',
  clientId: '11111111-2222-3333-4444-555555555555',
  clientSecret: 'app~secret.value',
};

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

describe.each(dialects)('Microsoft 365 mailboxes through Microsoft Graph (%s)', (dialect) => {
  let graph: GraphStandIn;
  let s: Awaited<ReturnType<typeof startTestServer>>;
  let call: Call;
  let admin: SignedUp;
  let agent: { token: string };
  let address: string;
  let mailboxId: number;
  const db = () => s.handle.db;

  const graphBody = (over: Record<string, unknown> = {}, app: Record<string, unknown> = {}) => ({
    kind: 'graph',
    address,
    name: 'Contoso Help',
    departmentId: null,
    active: true,
    graph: { ...APP, ...app },
    ...over,
  });
  const mailboxRow = () =>
    db()
      .selectFrom('mailboxes')
      .selectAll()
      .where('account_id', '=', admin.accountId)
      .where('id', '=', mailboxId)
      .executeTakeFirstOrThrow();
  const ticketOf = (messageId: string) =>
    db()
      .selectFrom('email_message_ids as e')
      .innerJoin('tickets as t', (j) => j.onRef('t.id', '=', 'e.ticket_id').onRef('t.account_id', '=', 'e.account_id'))
      .select(['t.id', 't.ticket_number', 't.channel', 't.mailbox_id', 't.title', 't.department_id'])
      .where('e.account_id', '=', admin.accountId)
      .where('e.message_id', '=', messageId)
      .executeTakeFirst();
  const messagesOf = (ticketId: number) =>
    db()
      .selectFrom('messages')
      .select(['id', 'message', 'sender', 'email_state', 'email_error'])
      .where('account_id', '=', admin.accountId)
      .where('ticket_id', '=', ticketId)
      .orderBy('id')
      .execute();
  /** Every `email.graph_notified` of the account handled by the relay (its listener ran to the end). */
  const notifiedDone = async () => {
    const rows = await db()
      .selectFrom('events')
      .select(['delivered_at'])
      .where('account_id', '=', admin.accountId)
      .where('type', '=', 'email.graph_notified')
      .execute();
    return rows.every((r) => r.delivered_at !== null) && rows.length;
  };
  const notifiedCount = async () =>
    Number(
      (
        await db()
          .selectFrom('events')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('type', '=', 'email.graph_notified')
          .executeTakeFirstOrThrow()
      ).n,
    );
  const mail = (
    subject: string,
    messageId = `m-${uniq()}@customer.example`,
    from = `carl-${uniq()}@customer.example`,
  ) => ({
    messageId,
    from,
    mime: rawMail({ from: `Carl <${from}>`, to: address, subject, messageId, text: `Body of ${subject}` }),
  });
  const subscription = () => [...graph.subscriptions.values()].find((x) => x.resource.includes(address));

  beforeAll(async () => {
    graph = await startGraphStandIn(APP);
    const port = await freePort();
    s = await startTestServer(dialect, {
      SECRETS_KEY: KEY,
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      GRAPH_BASE_URL: graph.baseUrl,
      GRAPH_LOGIN_URL: graph.loginUrl,
      // The poll is left to the tests (syncGraphMailbox): what arrives on its own came by a notification.
      EMAIL_POLL_MS: '3600000',
    });
    call = apiClient(s.url);
    admin = await signUpVia(call);
    agent = await addUserVia(call, admin.token, { username: `agent-${uniq()}`, type: 'agent', name: 'Bo' });
    address = `help-${uniq()}@contoso.test`;
    graph.addUser(address, 'Contoso Help Desk');
    const made = await call('POST', '/api/mailboxes', { token: admin.token, body: graphBody() });
    expect(made.status, made.text).toBe(200);
    mailboxId = made.body.data.id;
  });
  afterAll(async () => {
    await s?.stop();
    await graph?.close();
  });

  it('GRAPH_EMAIL a new mailbox subscribes to its Inbox: Graph validates our URL, the clientState is sealed, no secret is answered', async () => {
    const sub = await waitFor(subscription, 'the subscription');
    expect(sub.resource).toBe(`users/${address}/mailFolders('Inbox')/messages`);
    expect(sub.changeType).toBe('created');
    expect(sub.notificationUrl).toBe(`${s.url}${GRAPH_NOTIFY_PATH}`);
    expect(sub.clientState.length).toBeGreaterThanOrEqual(32);
    const row = await waitFor(async () => {
      const r = await mailboxRow();
      return r.graph_subscription_id === sub.id && r.graph_delta_link ? r : null;
    }, 'the subscription and the first delta on the row');
    expect(row.kind).toBe('graph');
    expect(row.graph_client_state.startsWith('v1.')).toBe(true);
    expect(row.graph_client_state).not.toContain(sub.clientState);
    expect(row.graph_secret.startsWith('v1.')).toBe(true);
    expect(row.imap_host).toBe('');

    const list = await call('GET', '/api/mailboxes', { token: admin.token });
    const shown = list.body.data.find((m: { id: number }) => m.id === mailboxId);
    expect(shown).toMatchObject({
      kind: 'graph',
      address,
      graph: { tenantId: APP.tenantId, clientId: APP.clientId, hasClientSecret: true },
    });
    expect(shown.graph.subscriptionExpiresAt).toBeGreaterThan(Date.now() + 86_400_000);
    expect(list.text).not.toContain(APP.clientSecret);
    expect(list.text).not.toContain(sub.clientState);

    // The handshake itself: the token comes back exactly, as text that no browser renders.
    const token = 'Validation: <b>reachability</b> & more';
    const res = await fetch(`${s.url}${GRAPH_NOTIFY_PATH}?validationToken=${encodeURIComponent(token)}`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain; charset=utf-8' },
      body: '',
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await res.text()).toBe(token);
  });

  it('GRAPH_EMAIL TICKET-16 TICKET-17 a notified message becomes a GRAPH_EMAIL ticket of the mailbox, by its MIME', async () => {
    await waitFor(subscription, 'the subscription');
    const m = mail('Printer on fire');
    await graph.deliver(address, m.mime);
    const t = await waitFor(() => ticketOf(m.messageId), 'the ticket');
    expect(t).toMatchObject({ channel: 'GRAPH_EMAIL', mailbox_id: mailboxId, title: 'Printer on fire' });
    const [first] = await messagesOf(Number(t.id));
    expect(first!.message).toContain('Body of Printer on fire');
    // The raw MIME was fetched by its id, with a token of the app.
    expect(
      graph.requests.some((r) => r.route === 'value' && r.path.startsWith(`/v1.0/users/${address}/messages/`)),
    ).toBe(true);
  });

  it('GRAPH_EMAIL a notification posted twice (and the delta seeing it too) stores the mail once', async () => {
    const sub = await waitFor(subscription, 'the subscription');
    const m = mail('Twice');
    const graphId = await graph.deliver(address, m.mime);
    const t = await waitFor(() => ticketOf(m.messageId), 'the ticket');
    for (let i = 0; i < 2; i++)
      expect(await graph.post(sub.notificationUrl, graph.notificationFor(sub.id, graphId))).toBe(202);
    await waitFor(notifiedDone, 'the notifications handled');
    await syncGraphMailbox(deps(), admin.accountId, mailboxId);
    expect(await messagesOf(Number(t.id))).toHaveLength(1);
    const tickets = await db()
      .selectFrom('tickets')
      .select('id')
      .where('account_id', '=', admin.accountId)
      .where('title', '=', 'Twice')
      .execute();
    expect(tickets).toHaveLength(1);
  });

  it('GRAPH_EMAIL a notification with a wrong clientState (or an unknown subscription) is answered 202 and ignored', async () => {
    const sub = await waitFor(subscription, 'the subscription');
    const m = mail('Forged');
    const graphId = await graph.deliver(address, m.mime, { notify: false });
    const before = await notifiedCount();
    expect(await graph.post(sub.notificationUrl, graph.notificationFor(sub.id, graphId, 'not-the-state'))).toBe(202);
    const unknown = graph.notificationFor(sub.id, graphId);
    unknown.value[0]!.subscriptionId = 'f0000000-0000-0000-0000-000000000000';
    expect(await graph.post(sub.notificationUrl, unknown)).toBe(202);
    expect(await notifiedCount()).toBe(before);
    expect(await ticketOf(m.messageId)).toBeUndefined();
  });

  it('GRAPH_EMAIL the first round of a new mailbox takes the unread mail of its Inbox, not the mail read before', async () => {
    const user = `sales-${uniq()}@contoso.test`;
    graph.addUser(user);
    const old = rawMail({ from: 'a@customer.example', to: user, subject: 'Old news', messageId: `old-${uniq()}@x` });
    const waiting = mail('Still unread');
    await graph.deliver(user, old, { isRead: true });
    await graph.deliver(user, waiting.mime.replace(`To: ${address}`, `To: ${user}`));
    const made = await call('POST', '/api/mailboxes', { token: admin.token, body: graphBody({ address: user }) });
    expect(made.status, made.text).toBe(200);
    await waitFor(
      async () =>
        (
          await db()
            .selectFrom('mailboxes')
            .select('graph_delta_link')
            .where('account_id', '=', admin.accountId)
            .where('id', '=', made.body.data.id)
            .executeTakeFirstOrThrow()
        ).graph_delta_link,
      'the first delta round',
    );
    expect(await ticketOf(waiting.messageId)).toMatchObject({ channel: 'GRAPH_EMAIL', mailbox_id: made.body.data.id });
    const oldTickets = await db()
      .selectFrom('tickets')
      .select('id')
      .where('account_id', '=', admin.accountId)
      .where('title', '=', 'Old news')
      .execute();
    expect(oldTickets).toHaveLength(0);
    // Removing the mailbox lets its subscription go at Graph too.
    expect(graph.subscriptionsOf(user)).toHaveLength(1);
    expect((await call('DELETE', `/api/mailboxes/${made.body.data.id}`, { token: admin.token })).status).toBe(200);
    await waitFor(() => graph.subscriptionsOf(user).length === 0, 'the subscription deleted');
  });

  it('GRAPH_EMAIL a lost notification is not a lost mail: the delta poll stores it (read or not, once the first round is done)', async () => {
    const m = mail('Never notified');
    await graph.deliver(address, m.mime, { notify: false });
    const read = mail('Read in Outlook');
    await graph.deliver(address, read.mime, { notify: false, isRead: true });
    await syncGraphMailbox(deps(), admin.accountId, mailboxId);
    const t = await ticketOf(m.messageId);
    expect(t).toMatchObject({ channel: 'GRAPH_EMAIL', title: 'Never notified' });
    // After the first round, new mail counts even when it was read in Outlook before the poll came.
    expect(await ticketOf(read.messageId)).toMatchObject({ channel: 'GRAPH_EMAIL' });
    const row = await mailboxRow();
    expect(row.last_error).toBeNull();
    expect(row.lease_owner).toBe('');
  });

  it('GRAPH_EMAIL without PUBLIC_URL no subscription is made: the poll alone reads the mailbox, and the row says why', async () => {
    const user = `nopublic-${uniq()}@contoso.test`;
    graph.addUser(user);
    const waiting = mail('Polled only');
    await graph.deliver(user, waiting.mime.replace(`To: ${address}`, `To: ${user}`));
    // Inactive when made, so this server's own round (which has PUBLIC_URL) does not run for it.
    const made = await call('POST', '/api/mailboxes', {
      token: admin.token,
      body: graphBody({ address: user, active: false }),
    });
    expect(made.status, made.text).toBe(200);
    const id = made.body.data.id;
    // The save kicked a round of this server's own (with PUBLIC_URL): it must end, and no other start, before
    // the mailbox is switched on, or it could subscribe the mailbox meanwhile.
    await s.graphSync.stop();
    try {
      await db()
        .updateTable('mailboxes')
        .set({ active: 1 })
        .where('account_id', '=', admin.accountId)
        .where('id', '=', id)
        .execute();
      await syncGraphMailbox({ ...deps(), publicUrl: undefined }, admin.accountId, id);
    } finally {
      s.graphSync.start();
    }
    expect(graph.subscriptionsOf(user)).toEqual([]);
    expect(await ticketOf(waiting.messageId)).toMatchObject({ channel: 'GRAPH_EMAIL', mailbox_id: id });
    const row = await db()
      .selectFrom('mailboxes')
      .selectAll()
      .where('account_id', '=', admin.accountId)
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.last_error).toBe(EMAIL_STRINGS.graphNoPublicUrl);
    expect(row.graph_subscription_id).toBeNull();
    await call('DELETE', `/api/mailboxes/${id}`, { token: admin.token });
  });

  /** A ticket made by a notified mail, and its customer. */
  async function graphTicket(subject = 'Where is my order') {
    await waitFor(subscription, 'the subscription');
    const m = mail(subject);
    await graph.deliver(address, m.mime);
    const t = await waitFor(() => ticketOf(m.messageId), 'the ticket');
    return { id: Number(t.id), number: Number(t.ticket_number), from: m.from };
  }
  const reply = (ticket: number, to: string, title: string) =>
    call('POST', '/api/ticket/message/reply', {
      token: agent.token,
      body: { ticket_id: ticket, type: 'text', message: 'It ships today.', email: to, title, client_id: newQueueId() },
    });
  const settled = (id: number) =>
    waitFor(
      async () => {
        const r = await db()
          .selectFrom('messages')
          .select(['email_state', 'email_error', 'email_attempt_at'])
          .where('account_id', '=', admin.accountId)
          .where('id', '=', id)
          .executeTakeFirstOrThrow();
        return r.email_state !== 'sending' && r;
      },
      `message ${id} settled`,
      20_000,
    );
  const sentTo = (to: string) =>
    graph.sent.filter((x) => x.body.message.toRecipients.some((r) => r.emailAddress.address === to));

  it('GRAPH_EMAIL a reply leaves by sendMail: the mailbox user, the customer, the [#N] subject, the body; the token is reused', async () => {
    const t = await graphTicket();
    const tokens = graph.tokenCount;
    const r = await reply(t.id, t.from, `Re: Re: Where is my order [#${t.number}]`);
    expect(r.status, r.text).toBe(200);
    expect(r.body.mail).toBe('sending');
    expect(await settled(r.body.id)).toEqual({ email_state: 'sent', email_error: null, email_attempt_at: null });
    const [sent] = sentTo(t.from);
    expect(sentTo(t.from)).toHaveLength(1);
    expect(sent!.user).toBe(address);
    expect(sent!.body.message.toRecipients).toEqual([{ emailAddress: { address: t.from } }]);
    expect(sent!.body.message.subject).toBe(`Re: Where is my order [#${t.number}]`);
    expect(sent!.body.message.body).toEqual({ contentType: 'Text', content: 'It ships today.' });
    expect(sent!.body.saveToSentItems).toBe(true);
    expect(graph.tokenCount).toBe(tokens);
    // Graph's sendMail cannot carry our Message-ID: none is recorded for it.
    const outbound = await db()
      .selectFrom('email_message_ids')
      .select('id')
      .where('account_id', '=', admin.accountId)
      .where('ticket_id', '=', t.id)
      .where('direction', '=', 'out')
      .execute();
    expect(outbound).toHaveLength(0);

    // The customer's answer carries the [#N] tag (Graph's sendMail gave it no Message-ID of ours to answer).
    const answer = `answer-${uniq()}@customer.example`;
    await graph.deliver(
      address,
      rawMail({
        from: `Carl <${t.from}>`,
        to: address,
        subject: `RE: Where is my order [#${t.number}]`,
        messageId: answer,
      }),
    );
    expect(await waitFor(() => ticketOf(answer), 'the answer')).toMatchObject({ id: t.id, channel: 'GRAPH_EMAIL' });
  });

  it("GRAPH_EMAIL a reply Graph refuses (400) is failed at once with Graph's own message", async () => {
    const t = await graphTicket('Refused reply');
    const words =
      'At least one recipient is not valid., A message can\u2019t be sent because it contains no recipients.';
    graph.fail('sendMail', 400, graph.graphError('ErrorInvalidRecipients', words));
    const tries = graph.requests.filter((x) => x.route === 'sendMail').length;
    const r = await reply(t.id, t.from, 'Re: Refused reply');
    expect(r.status, r.text).toBe(200);
    expect(await settled(r.body.id)).toEqual({ email_state: 'failed', email_error: words, email_attempt_at: null });
    expect(sentTo(t.from)).toHaveLength(0);
    // Refused for good: not tried again.
    expect(graph.requests.filter((x) => x.route === 'sendMail').length).toBe(tries + 1);
  });

  it('GRAPH_EMAIL a 429 with Retry-After is tried again after it, and sent once', async () => {
    const t = await graphTicket('Throttled reply');
    graph.fail(
      'sendMail',
      429,
      graph.graphError('ApplicationThrottled', 'Application is over its MailboxConcurrency limit.'),
      // Longer than our own first backoff (1 s): a wait this long is Graph's.
      { 'retry-after': '2' },
    );
    const r = await reply(t.id, t.from, 'Re: Throttled reply');
    expect(await settled(r.body.id)).toEqual({ email_state: 'sent', email_error: null, email_attempt_at: null });
    expect(sentTo(t.from)).toHaveLength(1);
    const tries = graph.requests.filter((x) => x.route === 'sendMail').slice(-2);
    expect(tries).toHaveLength(2);
    expect(tries[1]!.at - tries[0]!.at).toBeGreaterThanOrEqual(2000);
  });

  it('GRAPH_EMAIL a subscription near its end is renewed; one Graph no longer knows is made anew', async () => {
    const sub = await waitFor(subscription, 'the subscription');
    const soon = Date.now() + 3_600_000;
    const setUntil = (until: number) =>
      db()
        .updateTable('mailboxes')
        .set({ graph_subscription_until: until })
        .where('account_id', '=', admin.accountId)
        .where('id', '=', mailboxId)
        .execute();
    await setUntil(soon);
    await syncGraphMailbox(deps(), admin.accountId, mailboxId);
    const renewed = await mailboxRow();
    expect(renewed.graph_subscription_id).toBe(sub.id);
    expect(Number(renewed.graph_subscription_until)).toBeGreaterThan(Date.now() + 86_400_000);
    expect(Date.parse(graph.subscriptions.get(sub.id)!.expirationDateTime)).toBe(
      Number(renewed.graph_subscription_until),
    );

    // Graph dropped it (a lapsed subscription, a tenant clean-up): a new one with a new clientState.
    graph.subscriptions.delete(sub.id);
    await setUntil(soon);
    await syncGraphMailbox(deps(), admin.accountId, mailboxId);
    const fresh = await waitFor(subscription, 'the new subscription');
    expect(fresh.id).not.toBe(sub.id);
    expect(fresh.clientState).not.toBe(sub.clientState);
    expect((await mailboxRow()).graph_subscription_id).toBe(fresh.id);
    // Its notifications are taken.
    const m = mail('After the renewal');
    await graph.deliver(address, m.mime);
    expect(await waitFor(() => ticketOf(m.messageId), 'the ticket')).toMatchObject({ channel: 'GRAPH_EMAIL' });
  });

  it("GRAPH_EMAIL the connection test gets a token and reads the user; a wrong secret shows Graph's own words", async () => {
    const ok = await call('POST', `/api/mailboxes/${mailboxId}/test`, { token: admin.token });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.graph).toEqual({ ok: true, response: EMAIL_STRINGS.graphTestOk('Contoso Help Desk') });
    expect(ok.body.imap).toBeUndefined();

    // A second mailbox whose user Graph does not know, then with a wrong secret.
    const other = `nobody-${uniq()}@contoso.test`;
    const made = await call('POST', '/api/mailboxes', {
      token: admin.token,
      body: graphBody({ address: other, active: false }),
    });
    expect(made.status, made.text).toBe(200);
    const unknown = await call('POST', `/api/mailboxes/${made.body.data.id}/test`, { token: admin.token });
    expect(unknown.body.graph.ok).toBe(false);
    expect(unknown.body.graph.response).toMatch(/^Resource '.*' does not exist/);
    const changed = await call('PUT', `/api/mailboxes/${made.body.data.id}`, {
      token: admin.token,
      body: graphBody({ address: other, active: false }, { clientSecret: 'wrong secret' }),
    });
    expect(changed.status, changed.text).toBe(200);
    const wrong = await call('POST', `/api/mailboxes/${made.body.data.id}/test`, { token: admin.token });
    expect(wrong.body.graph).toMatchObject({ ok: false });
    expect(wrong.body.graph.response).toMatch(/^AADSTS7000215: Invalid client secret provided/);
    // An edit without a secret keeps the stored one.
    const kept = await call('PUT', `/api/mailboxes/${made.body.data.id}`, {
      token: admin.token,
      body: graphBody({ address: other, active: false }, { clientSecret: undefined }),
    });
    expect(kept.body.data.graph.hasClientSecret).toBe(true);
    const stillWrong = await call('POST', `/api/mailboxes/${made.body.data.id}/test`, { token: admin.token });
    expect(stillWrong.body.graph.response).toMatch(/^AADSTS7000215/);
    await call('DELETE', `/api/mailboxes/${made.body.data.id}`, { token: admin.token });
  });

  it('GRAPH_EMAIL bad input: the notification route and the mailbox body answer 400 with clear words, never 5xx, and change nothing', async () => {
    const before = await notifiedCount();
    const post = (body: string, type = 'application/json', query = '') =>
      fetch(`${s.url}${GRAPH_NOTIFY_PATH}${query}`, { method: 'POST', headers: { 'content-type': type }, body });
    for (const body of [
      '{"value": "x"}',
      '{}',
      '[]',
      '{"value":[{}]}',
      '{"value":[{"subscriptionId":"","changeType":"created"}]}',
      'null',
    ]) {
      const res = await post(body);
      expect(res.status, body).toBe(400);
      expect((await res.json()).description).toMatch(/change notification|JSON/);
    }
    expect((await post('{not json')).status).toBe(400);
    expect((await post('plain words', 'text/plain')).status).toBe(400);
    expect((await post('', 'text/plain', `?validationToken=${'x'.repeat(5000)}`)).status).toBe(400);
    expect(await notifiedCount()).toBe(before);

    const bad = async (body: unknown, words: string | RegExp, method = 'POST', path = '/api/mailboxes') => {
      const r = await call(method, path, { token: admin.token, body });
      expect(r.status, r.text).toBe(400);
      expect(r.body.description).toMatch(words);
    };
    await bad(graphBody({ address: `x-${uniq()}@contoso.test` }, { tenantId: '' }), EMAIL_STRINGS.graphTenantRequired);
    await bad(graphBody({ address: `x-${uniq()}@contoso.test` }, { clientId: 'a b/c' }), EMAIL_STRINGS.graphIdShape);
    await bad(
      graphBody({ address: `x-${uniq()}@contoso.test` }, { clientSecret: '' }),
      EMAIL_STRINGS.graphSecretRequired,
    );
    await bad(graphBody({ address: 'not an address' }), /Please check the email address/);
    await bad({ kind: 'pop3', address: `x-${uniq()}@contoso.test` }, /discriminator|kind/i);
    // A mailbox keeps its kind.
    const asImap = await call('PUT', `/api/mailboxes/${mailboxId}`, {
      token: admin.token,
      body: {
        address,
        imap: { host: '127.0.0.1', port: 9, tls: false, user: 'u', password: 'p' },
        smtp: { host: '127.0.0.1', port: 9, tls: false, user: 'u' },
      },
    });
    expect(asImap.status, asImap.text).toBe(409);
    expect(asImap.body.description).toBe(EMAIL_STRINGS.kindFixed);
    expect((await mailboxRow()).kind).toBe('graph');
  });

  it("GRAPH_EMAIL tenant isolation: another account cannot see, change, test or feed this account's Microsoft 365 mailbox", async () => {
    const sub = await waitFor(subscription, 'the subscription');
    const b = await signUpVia(call);
    const bAddress = `help-${uniq()}@fabrikam.test`;
    graph.addUser(bAddress);
    const bBox = await call('POST', '/api/mailboxes', {
      token: b.token,
      body: graphBody({ address: bAddress }),
    });
    expect(bBox.status, bBox.text).toBe(200);
    const bSub = await waitFor(
      () => [...graph.subscriptions.values()].find((x) => x.resource.includes(bAddress)),
      "B's subscription",
    );

    const list = await call('GET', '/api/mailboxes', { token: b.token });
    expect(list.body.data.map((m: { id: number }) => m.id)).toEqual([bBox.body.data.id]);
    const before = await mailboxRow();
    expect(
      (await call('PUT', `/api/mailboxes/${mailboxId}`, { token: b.token, body: graphBody({ address: bAddress }) }))
        .status,
    ).toBe(404);
    expect((await call('POST', `/api/mailboxes/${mailboxId}/test`, { token: b.token })).status).toBe(404);
    expect((await call('DELETE', `/api/mailboxes/${mailboxId}`, { token: b.token })).status).toBe(404);
    expect(await mailboxRow()).toEqual(before);

    // B's clientState does not open A's subscription: a mail of A's notified with it is not taken.
    const m = mail('Crossed');
    const graphId = await graph.deliver(address, m.mime, { notify: false });
    const events = await notifiedCount();
    expect(await graph.post(sub.notificationUrl, graph.notificationFor(sub.id, graphId, bSub.clientState))).toBe(202);
    expect(await notifiedCount()).toBe(events);
    expect(await ticketOf(m.messageId)).toBeUndefined();
  });

  const deps = () => ({
    db: db(),
    conversations: conversationRules(),
    dataDir: s.config.DATA_DIR,
    secrets: new Secrets(KEY),
    graph: new GraphClient({ baseUrl: graph.baseUrl, loginUrl: graph.loginUrl }),
    log: pino({ level: 'silent' }),
    nodeId: s.nodeId,
    publicUrl: s.config.PUBLIC_URL,
    pollMs: 3_600_000,
  });
});

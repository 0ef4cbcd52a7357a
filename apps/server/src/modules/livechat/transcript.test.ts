import { TRANSCRIPT_STRINGS } from '@parley/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type Call, signUpVia } from '../../testing/api.js';
import { liveChatAccount, queueVisitor } from '../../testing/livechat.js';
import { smtpSink } from '../../testing/smtp.js';
import { connectSocket, type TestSocket } from '../../testing/sockets.js';
import { dialects, startTestServer } from '../../testing/support.js';

/** The decoded text of a quoted-printable MIME message (soft line breaks joined, =XX decoded). */
const unfold = (raw: string) =>
  raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)));

describe.each(dialects)('PLAN-21 chat transcripts (%s)', (dialect) => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let sink: Awaited<ReturnType<typeof smtpSink>>;
  let call: Call;
  const opened: { close(): void }[] = [];
  beforeAll(async () => {
    // A mail server that refuses one address, as a real one refuses an unknown mailbox.
    sink = await smtpSink({ refuse: (a) => (a.startsWith('bounce') ? 'Mailbox unavailable' : null) });
    server = await startTestServer(dialect, { TRUST_PROXY: 'true', SMTP_URL: `smtp://127.0.0.1:${sink.port}` });
    call = apiClient(server.url);
  });
  afterAll(async () => {
    for (const s of opened) s.close();
    await server?.stop();
    await sink?.close();
  });
  const db = () => server.handle.db;
  const mailTo = (to: string) => sink.mail.filter((m) => m.to.includes(to));
  const audits = async (accountId: number) =>
    (
      await db()
        .selectFrom('audit_log')
        .select(['actor', 'detail'])
        .where('account_id', '=', accountId)
        .where('action', '=', 'livechat.transcript_sent')
        .orderBy('id')
        .execute()
    ).map((a) => ({ actor: a.actor, ...JSON.parse(a.detail) }));

  /** An account on `plan` with one agent in a running chat with visitor `name` (two messages each way). */
  async function runningChat(plan: number, name: string) {
    const acc = await liveChatAccount(call, db(), 1, plan);
    const v = await queueVisitor(call, server.url, acc.token, name, opened);
    const s = await connectSocket(server.url, acc.agents[0]!.token, opened as TestSocket[]);
    const a = await s.emitWithAck('acceptLiveChat', null);
    if (!a.ok) throw new Error(a.error);
    expect((await v.socket.emitWithAck('visitorMessage', { message: 'My order <42> is late' })).ok).toBe(true);
    const r = await call('POST', '/api/ticket/message', {
      token: acc.agents[0]!.token,
      body: { ticket_id: a.ticket_id, message: 'Let me check & see' },
    });
    expect(r.status, r.text).toBe(200);
    return { ...acc, visitor: v, ticketId: a.ticket_id, agent: acc.agents[0]! };
  }
  const end = async (token: string, id: number) =>
    expect((await call('POST', '/api/livechat/end', { token, body: { id } })).status).toBe(200);
  const visitorSend = (token: string, csrf: string, ip: string) =>
    call('POST', '/api/livechat/transcript/visitor', {
      body: { token, _token: csrf },
      headers: { 'x-forwarded-for': ip },
    });

  it('PLAN-16 PLAN-21 below Basic the agent and the visitor are refused with the way up; nothing is sent', async () => {
    const c = await runningChat(1, 'Stella');
    const mails = sink.mail.length;
    const dl = await call('GET', `/api/livechat/transcript/${c.ticketId}`, { token: c.agent.token });
    expect(dl.status).toBe(403);
    expect(dl.body.description).toBe(TRANSCRIPT_STRINGS.notOnPlan);
    const em = await call('POST', '/api/livechat/transcript/email', { token: c.agent.token, body: { id: c.ticketId } });
    expect(em.status).toBe(403);
    expect(em.body.description).toBe('Chat transcripts come with the Basic plan and up: upgrade on the Plans page.');
    await end(c.agent.token, c.ticketId);
    const info = await call('POST', '/api/livechat/info', { body: { token: c.token, csrf: c.visitor.csrf } });
    expect(info.body).toMatchObject({ result: 'rating', transcript: false });
    const v = await visitorSend(c.token, c.visitor.csrf, c.visitor.ip);
    expect(v.status).toBe(403);
    expect(v.body.description).toBe(TRANSCRIPT_STRINGS.notOnPlan);
    expect(sink.mail.length).toBe(mails);
    expect(await audits(c.admin.accountId)).toEqual([]);
  });

  it('PLAN-21 on Basic an agent downloads the transcript and e-mails it (visitor address or another) over SMTP, audited', async () => {
    const c = await runningChat(2, 'Basil');
    const dl = await fetch(`${server.url}/api/livechat/transcript/${c.ticketId}`, {
      headers: { authorization: `Bearer ${c.agent.token}` },
    });
    expect(dl.status).toBe(200);
    expect(dl.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(dl.headers.get('content-disposition')).toMatch(/^attachment; filename="chat-\d+-transcript\.txt"$/);
    const text = await dl.text();
    const lines = text.split('\n');
    expect(lines[0]).toBe(`Live chat transcript: ${c.admin.company}`);
    expect(text).toContain('Visitor: Basil <Basil@example.com>');
    const said = lines.filter((l) => /^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\] /.test(l)).map((l) => l.slice(26));
    expect(said).toEqual([
      'Basil: Hello from Basil',
      'Basil: My order <42> is late',
      `${c.agent.username}: Let me check & see`,
    ]);

    // To the visitor's own address (a running chat may be sent too).
    const r = await call('POST', '/api/livechat/transcript/email', { token: c.agent.token, body: { id: c.ticketId } });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ result: 'success', to: 'Basil@example.com' });
    await expect.poll(() => mailTo('Basil@example.com').length, { timeout: 5000 }).toBe(1);
    const raw = unfold(mailTo('Basil@example.com')[0]!.raw);
    expect(raw).toContain(`Subject: Your live chat with ${c.admin.company}`);
    expect(raw).toContain('Basil: My order <42> is late');
    // The HTML part escapes what the visitor wrote.
    expect(raw).toContain('My order &lt;42&gt; is late');
    // To another address; a refused address is a 502 with the mail server's words.
    const other = await call('POST', '/api/livechat/transcript/email', {
      token: c.agent.token,
      body: { id: c.ticketId, to: 'lead@example.org' },
    });
    expect(other.status, other.text).toBe(200);
    await expect.poll(() => mailTo('lead@example.org').length, { timeout: 5000 }).toBe(1);
    const refused = await call('POST', '/api/livechat/transcript/email', {
      token: c.agent.token,
      body: { id: c.ticketId, to: 'bounce@example.org' },
    });
    expect(refused.status).toBe(502);
    expect(refused.body.description).toMatch(/^The transcript could not be sent: .*Mailbox unavailable/);
    expect((await audits(c.admin.accountId)).map((a) => [a.actor, a.to])).toEqual([
      [c.agent.username, 'Basil@example.com'],
      [c.agent.username, 'lead@example.org'],
    ]);
  });

  it('PLAN-21 the visitor has the transcript sent to the form address once the chat ended, once per chat', async () => {
    const c = await runningChat(3, 'Vita');
    // While the chat runs the visitor is told to wait for its end.
    const early = await visitorSend(c.token, c.visitor.csrf, c.visitor.ip);
    expect(early.status).toBe(409);
    expect(early.body.description).toBe(TRANSCRIPT_STRINGS.notEnded);
    await end(c.agent.token, c.ticketId);
    const info = await call('POST', '/api/livechat/info', { body: { token: c.token, csrf: c.visitor.csrf } });
    expect(info.body).toMatchObject({ result: 'rating', transcript: true });
    const r = await visitorSend(c.token, c.visitor.csrf, c.visitor.ip);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ result: 'success', to: 'Vita@example.com' });
    await expect.poll(() => mailTo('Vita@example.com').length, { timeout: 5000 }).toBe(1);
    expect(unfold(mailTo('Vita@example.com')[0]!.raw)).toContain('ended the live chat.');
    const again = await visitorSend(c.token, c.visitor.csrf, c.visitor.ip);
    expect(again.status).toBe(409);
    expect(again.body.description).toBe(TRANSCRIPT_STRINGS.alreadySent);
    const after = await call('POST', '/api/livechat/info', { body: { token: c.token, csrf: c.visitor.csrf } });
    expect(after.body.transcript).toBe(false);
    expect(mailTo('Vita@example.com')).toHaveLength(1);
    expect((await audits(c.admin.accountId)).map((a) => [a.actor, a.to, a.visitor])).toEqual([
      ['visitor', 'Vita@example.com', true],
    ]);
  });

  it('PLAN-21 a visitor address the mail server refuses: 502, nothing marked sent, the visitor may try again', async () => {
    const c = await runningChat(2, 'bounce');
    await end(c.agent.token, c.ticketId);
    const r = await visitorSend(c.token, c.visitor.csrf, c.visitor.ip);
    expect(r.status).toBe(502);
    const row = await db()
      .selectFrom('livechats')
      .select('transcript_sent_at')
      .where('ticket_id', '=', c.ticketId)
      .executeTakeFirstOrThrow();
    expect(row.transcript_sent_at).toBeNull();
    const info = await call('POST', '/api/livechat/info', { body: { token: c.token, csrf: c.visitor.csrf } });
    expect(info.body.transcript).toBe(true);
  });

  it('PLAN-21 bad input and other accounts: clear 4xx, nothing sent', async () => {
    const c = await runningChat(2, 'Bea');
    const stranger = await signUpVia(call);
    await db().updateTable('accounts').set({ plan: 2 }).where('id', '=', stranger.accountId).execute();
    const mails = sink.mail.length;
    // Another account's chat is not found.
    const dl = await call('GET', `/api/livechat/transcript/${c.ticketId}`, { token: stranger.token });
    expect(dl.status).toBe(404);
    const em = await call('POST', '/api/livechat/transcript/email', {
      token: stranger.token,
      body: { id: c.ticketId },
    });
    expect(em.status).toBe(404);
    for (const [path, body] of [
      ['/api/livechat/transcript/email', {}],
      ['/api/livechat/transcript/email', { id: 'abc' }],
      ['/api/livechat/transcript/email', { id: -1 }],
      ['/api/livechat/transcript/email', { id: c.ticketId, to: 'not-an-address' }],
      ['/api/livechat/transcript/email', { id: c.ticketId, to: '' }],
      ['/api/livechat/transcript/visitor', {}],
      ['/api/livechat/transcript/visitor', { token: c.token }],
    ] as const) {
      const r = await call('POST', path, { token: c.agent.token, body, headers: { 'x-forwarded-for': c.visitor.ip } });
      expect(r.status, `${path} ${JSON.stringify(body)}`).toBe(400);
    }
    for (const id of ['abc', '0', '-3', '1.5', '99999999999999999999'])
      expect((await call('GET', `/api/livechat/transcript/${id}`, { token: c.agent.token })).status, id).toBe(400);
    // A forged visitor session, a forged link.
    expect((await visitorSend(c.token, 'forged-csrf', c.visitor.ip)).status).toBe(403);
    expect((await visitorSend('forged-token', c.visitor.csrf, c.visitor.ip)).status).toBe(404);
    // No session at all for the agent calls.
    expect((await call('GET', `/api/livechat/transcript/${c.ticketId}`)).status).toBe(401);
    expect(sink.mail.length).toBe(mails);
  });
});

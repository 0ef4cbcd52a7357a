import { MESSAGE_STRINGS, newQueueId } from '@parley/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUserVia, apiClient, type Call, signUpVia, uniq } from '../../testing/api.js';
import { insertTicket } from '../../testing/messages.js';
import { smtpSink } from '../../testing/smtp.js';
import { dialects, startTestServer } from '../../testing/support.js';
import { htmlToText } from './emailReply.js';

/** The decoded text of a quoted-printable MIME message (soft line breaks joined, =XX decoded). */
const unfold = (raw: string) =>
  raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)));

describe.each(dialects)('e-mail replies over SMTP (%s)', (dialect) => {
  let sink: Awaited<ReturnType<typeof smtpSink>>;
  let s: Awaited<ReturnType<typeof startTestServer>>;
  let call: Call;
  const db = () => s.handle.db;

  beforeAll(async () => {
    // A mailbox that does not exist is refused by the server, as a real one would.
    sink = await smtpSink({
      refuse: (a) => (a.endsWith('@refuse.example') ? `5.1.1 <${a}>: Recipient address rejected: User unknown` : null),
    });
    s = await startTestServer(dialect, {
      SMTP_URL: `smtp://127.0.0.1:${sink.port}`,
      MAIL_FROM: 'Acme Support <help@acme.test>',
    });
    call = apiClient(s.url);
  });
  afterAll(async () => {
    await s?.stop();
    await sink?.close();
  });

  /** An agent and an e-mail ticket from Pat in a new account. */
  async function emailTicket() {
    const admin = await signUpVia(call);
    const agent = await addUserVia(call, admin.token, { username: `agent-${uniq()}`, type: 'agent', name: 'Bo' });
    return { admin, agent, ticket: await insertTicket(db(), admin.accountId) };
  }
  const messages = (ticket: number) =>
    db().selectFrom('messages').select(['id', 'message']).where('ticket_id', '=', ticket).execute();
  const uploads = (accountId: number) =>
    db().selectFrom('uploads').select('name').where('account_id', '=', accountId).execute();

  it('MSG-25 MSG-26 an e-mail reply is sent through SMTP_URL: to, cc, subject, Reply-To, HTML and text', async () => {
    const { agent, ticket } = await emailTicket();
    const before = sink.mail.length;
    const r = await call('POST', '/api/ticket/message/reply', {
      token: agent.token,
      body: {
        ticket_id: ticket,
        type: 'text/html',
        message: '<p>Hello Pat,</p><p>It is fixed &amp; tested.</p>',
        email: 'pat@example.com',
        toEmail: ['ops@example.com'],
        cc: 'boss@example.com, audit@example.com',
        email2: 'support@acme.test',
        client_id: newQueueId(),
      },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ result: 'success', mail: 'sent' });
    expect(r.body.description).toBeUndefined();
    expect(r.body.data.email).toEqual({
      to: ['pat@example.com', 'ops@example.com'],
      cc: ['boss@example.com', 'audit@example.com'],
      subject: 'Re: Printer on fire',
    });
    expect(sink.mail).toHaveLength(before + 1);
    const got = sink.mail.at(-1)!;
    expect(got.from).toBe('help@acme.test');
    expect(got.to.sort()).toEqual(['audit@example.com', 'boss@example.com', 'ops@example.com', 'pat@example.com']);
    const raw = unfold(got.raw);
    expect(raw).toMatch(/^Subject: Re: Printer on fire$/m);
    expect(raw).toMatch(/^To: pat@example.com, ops@example.com$/m);
    expect(raw).toMatch(/^Cc: boss@example.com, audit@example.com$/m);
    expect(raw).toMatch(/^Reply-To: support@acme.test$/m);
    expect(raw).toContain('Content-Type: text/html');
    expect(raw).toContain('<p>It is fixed &amp; tested.</p>');
    expect(raw).toContain('Content-Type: text/plain');
    expect(raw).toContain('It is fixed & tested.');
    expect((await messages(ticket)).map((m) => m.id)).toEqual([r.body.id]);
  });

  it('MSG-25 a multipart reply stores attachment[] and mails it as an attachment; the answer names the file', async () => {
    const { admin, agent, ticket } = await emailTicket();
    const form = new FormData();
    form.append('ticket_id', String(ticket));
    form.append('type', 'text');
    form.append('message', 'The log you asked for.');
    form.append('email', 'pat@example.com');
    form.append('title', 'Your log');
    form.append('attachment[]', new Blob(['line one\nline two\n']), 'printer.log');
    const res = await fetch(`${s.url}/api/ticket/message/reply`, {
      method: 'POST',
      headers: { authorization: `Bearer ${agent.token}` },
      body: form,
    });
    const body = (await res.json()) as any;
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ result: 'success', mail: 'sent', fileName: 'printer.log', fileType: 'text/plain' });
    expect(body.file).toMatch(/^\/files\/[A-Za-z0-9_-]+\/printer\.log$/);
    expect(body.data.files).toHaveLength(1);
    expect((await uploads(admin.accountId)).map((u) => u.name)).toEqual(['printer.log']);
    const raw = unfold(sink.mail.at(-1)!.raw);
    expect(raw).toMatch(/^Subject: Your log$/m);
    expect(raw).toMatch(/Content-Disposition: attachment; filename=printer\.log/);
    expect(raw).toContain(Buffer.from('line one\nline two\n').toString('base64'));
  });

  it('MSG-31 a refused e-mail answers 502 with the SMTP response and stores nothing, not even its files', async () => {
    const { admin, agent, ticket } = await emailTicket();
    const before = sink.mail.length;
    const form = new FormData();
    form.append('ticket_id', String(ticket));
    form.append('type', 'text');
    form.append('message', 'Hello?');
    form.append('email', 'ghost@refuse.example');
    form.append('attachment[]', new Blob(['x']), 'a.txt');
    const res = await fetch(`${s.url}/api/ticket/message/reply`, {
      method: 'POST',
      headers: { authorization: `Bearer ${agent.token}` },
      body: form,
    });
    const body = (await res.json()) as any;
    expect(res.status).toBe(502);
    expect(body.code).toBe('MAIL_FAILED');
    expect(body.description).toBe(
      MESSAGE_STRINGS.mailFailed('550 5.1.1 <ghost@refuse.example>: Recipient address rejected: User unknown'),
    );
    expect(sink.mail).toHaveLength(before);
    expect(await messages(ticket)).toEqual([]);
    expect(await uploads(admin.accountId)).toEqual([]);
  });

  it('MSG-10 MSG-25 the same queue- id sent again answers the stored reply and mails nothing again', async () => {
    const { agent, ticket } = await emailTicket();
    const body = {
      ticket_id: ticket,
      type: 'text',
      message: 'Once',
      email: 'pat@example.com',
      client_id: newQueueId(),
    };
    const first = await call('POST', '/api/ticket/message/reply', { token: agent.token, body });
    const count = sink.mail.length;
    const again = await call('POST', '/api/ticket/message/reply', { token: agent.token, body });
    expect(again.status, again.text).toBe(200);
    expect(again.body).toMatchObject({ id: first.body.id, mail: 'sent' });
    expect(sink.mail).toHaveLength(count);
    expect(await messages(ticket)).toHaveLength(1);
  });

  it('MSG-26 the text part of an HTML reply keeps its lines and drops tags and scripts', () => {
    expect(htmlToText('<p>Hi&nbsp;Pat</p><script>x()</script><div>a<br>b &lt;c&gt;</div>')).toBe('Hi Pat\na\nb <c>');
  });
});

import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, signInVia, signUpVia } from '../testing/api.js';
import { startTestServer } from '../testing/support.js';

interface Received {
  from: string;
  to: string[];
  raw: string;
}

/** A real SMTP server on loopback that keeps what it receives. */
async function smtpSink(): Promise<{ port: number; mail: Received[]; close(): Promise<void> }> {
  const mail: Received[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    onData(stream, session, done) {
      let raw = '';
      stream.on('data', (d: Buffer) => {
        raw += d.toString();
      });
      stream.on('end', () => {
        mail.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
        });
        done();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return { port, mail, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('password reset over real SMTP', () => {
  let sink: Awaited<ReturnType<typeof smtpSink>>;
  let server: Awaited<ReturnType<typeof startTestServer>>;

  beforeAll(async () => {
    sink = await smtpSink();
    server = await startTestServer('sqlite', {
      SMTP_URL: `smtp://127.0.0.1:${sink.port}`,
      MAIL_FROM: 'Parley <help@example.test>',
      PUBLIC_URL: 'https://help.example.test',
    });
  });
  afterAll(async () => {
    await server?.stop();
    await sink?.close();
  });

  it('sends the reset link by SMTP to the stored address, from MAIL_FROM, pointing at PUBLIC_URL', async () => {
    const call = apiClient(server.url);
    const a = await signUpVia(call);
    const r = await call('POST', '/api/password_reset', { body: { email: a.email.toUpperCase() } });
    expect(r.status).toBe(200);
    await expect.poll(() => sink.mail.length, { timeout: 5000 }).toBe(1);
    const m = sink.mail[0]!;
    expect(m.from).toBe('help@example.test');
    expect(m.to).toEqual([a.email]);
    // Quoted-printable may wrap long lines with "=\r\n"; unwrap before reading the link.
    const body = m.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
    const token = /https:\/\/help\.example\.test\/password_reset\?token=([A-Za-z0-9_%-]+)/.exec(body)?.[1];
    expect(token).toBeDefined();

    const done = await call('POST', '/api/password_reset/confirm', {
      body: { token: decodeURIComponent(token!), password: 'a brand new password' },
    });
    expect(done.status).toBe(200);
    expect((await signInVia(call, a.username, 'a brand new password')).status).toBe(200);
    expect((await signInVia(call, a.username, a.password)).status).toBe(401);
  });
});

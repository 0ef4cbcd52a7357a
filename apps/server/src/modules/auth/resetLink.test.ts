import http from 'node:http';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, signUpVia } from '../../testing/api.js';
import { smtpSink } from '../../testing/smtp.js';
import { dialects, startTestServer } from '../../testing/support.js';

/** The decoded text of a quoted-printable MIME message (soft line breaks joined, =XX decoded). */
const unfold = (raw: string) =>
  raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)));

/** POST JSON with headers fetch will not forge (Host). */
function post(url: string, path: string, body: unknown, headers: Record<string, string>): Promise<number> {
  const u = new URL(url);
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        path,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...headers },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

describe.each(dialects)('password-reset links name only configured hosts (%s)', (dialect) => {
  let sink: Awaited<ReturnType<typeof smtpSink>>;
  beforeAll(async () => {
    sink = await smtpSink();
  });
  afterAll(async () => {
    await sink?.close();
  });

  /** Asks for a reset of a new account's address with the given headers; the link of the mail it got. */
  async function resetLink(
    server: Awaited<ReturnType<typeof startTestServer>>,
    headers: Record<string, string>,
  ): Promise<{ link: string; text: string }> {
    const a = await signUpVia(apiClient(server.url));
    expect(await post(server.url, '/api/password_reset', { email: a.email }, headers)).toBe(200);
    await expect.poll(() => sink.mail.filter((m) => m.to.includes(a.email)).length, { timeout: 5000 }).toBe(1);
    const text = unfold(sink.mail.find((m) => m.to.includes(a.email))!.raw);
    const link = /(\S+)\/password_reset\?token=/.exec(text)?.[1] ?? 'no link';
    return { link, text };
  }

  it('a forged Host header never reaches the mail: no PUBLIC_URL and no host map, the link is localhost', async () => {
    const warnings: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (l: string) => void warnings.push(JSON.parse(l).msg) });
    const s = await startTestServer(dialect, { SMTP_URL: `smtp://127.0.0.1:${sink.port}` }, { logger });
    try {
      const port = new URL(s.url).port;
      const forged: Record<string, string>[] = [
        { host: 'evil.example' },
        { host: 'evil.example:8080' },
        { host: `127.0.0.1:${port}`, 'x-forwarded-host': 'evil.example' },
      ];
      for (const headers of forged) {
        const { link, text } = await resetLink(s, headers);
        expect(text).not.toContain('evil.example');
        expect(link, JSON.stringify(headers)).toBe(
          headers.host!.startsWith('127.0.0.1') ? `http://127.0.0.1:${port}` : `http://localhost:${port}`,
        );
      }
      // Said once in the log, not on every reset.
      expect(warnings.filter((w) => w.includes('PUBLIC_URL'))).toHaveLength(1);
    } finally {
      await s.stop();
    }
  });

  it('with a host map, the link keeps a host it names; any other host gets the first one', async () => {
    const s = await startTestServer(dialect, {
      SMTP_URL: `smtp://127.0.0.1:${sink.port}`,
      HOST_VARIANTS: 'app.example.test=combined,help.example.test=support',
    });
    try {
      expect((await resetLink(s, { host: 'help.example.test' })).link).toBe('http://help.example.test');
      expect((await resetLink(s, { host: 'HELP.example.test:8443' })).link).toBe('http://help.example.test:8443');
      const forged = await resetLink(s, { host: 'help.example.test.evil.example' });
      expect(forged.text).not.toContain('evil.example');
      expect(forged.link).toBe('http://app.example.test');
    } finally {
      await s.stop();
    }
  });

  it('PUBLIC_URL wins over any Host header', async () => {
    const s = await startTestServer(dialect, {
      SMTP_URL: `smtp://127.0.0.1:${sink.port}`,
      PUBLIC_URL: 'https://parley.example.test/',
      HOST_VARIANTS: 'help.example.test=support',
    });
    try {
      for (const host of ['evil.example', 'help.example.test', 'localhost']) {
        const { link, text } = await resetLink(s, { host });
        expect(text).not.toContain('evil.example');
        expect(link).toBe('https://parley.example.test');
      }
    } finally {
      await s.stop();
    }
  });
});

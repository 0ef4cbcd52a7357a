import nodemailer, { type Transporter } from 'nodemailer';
import type pino from 'pino';

/** One outgoing e-mail. `to` may list several addresses; `html` goes with a plain `text` part. */
export interface OutgoingMail {
  to: string | string[];
  cc?: string[];
  replyTo?: string;
  subject: string;
  text: string;
  html?: string;
  /** Files read from disk by path. */
  attachments?: { filename: string; path: string; contentType?: string }[];
}

export interface Mailer {
  /** An SMTP server is configured (`SMTP_URL`); without one `send` only logs. */
  readonly configured: boolean;
  /** Sends, or rejects with the SMTP server's error (its `response` is the server's own words). */
  send(m: OutgoingMail): Promise<void>;
}

/**
 * Outgoing mail over SMTP (`SMTP_URL`). Without it, the message is written to the server log instead, so
 * a fresh install can still reset a password; that is the only place a one-time link is ever logged.
 */
export function createMailer(o: { smtpUrl?: string; from: string; log: pino.Logger }): Mailer {
  const transport: Transporter | null = o.smtpUrl ? nodemailer.createTransport(withTimeouts(o.smtpUrl)) : null;
  return {
    configured: transport !== null,
    async send(m) {
      if (!transport) {
        o.log.info({ mail: { to: m.to, subject: m.subject } }, `e-mail not sent (SMTP_URL is not set):\n${m.text}`);
        return;
      }
      await transport.sendMail({
        from: o.from,
        to: m.to,
        subject: m.subject,
        text: m.text,
        ...(m.cc?.length ? { cc: m.cc } : {}),
        ...(m.replyTo ? { replyTo: m.replyTo } : {}),
        ...(m.html !== undefined ? { html: m.html } : {}),
        ...(m.attachments?.length ? { attachments: m.attachments } : {}),
      });
    },
  };
}

/**
 * nodemailer waits 2 minutes for a connection and 10 for a silent socket; an agent waits on the answer of an
 * e-mail reply, so an unreachable server should fail within seconds. Options given in the URL's query win.
 */
function withTimeouts(smtpUrl: string): string {
  const u = new URL(smtpUrl);
  const defaults = { connectionTimeout: '15000', greetingTimeout: '15000', socketTimeout: '60000' };
  for (const [k, v] of Object.entries(defaults)) if (!u.searchParams.has(k)) u.searchParams.set(k, v);
  return u.toString();
}

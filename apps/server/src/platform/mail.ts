import nodemailer, { type Transporter } from 'nodemailer';
import type pino from 'pino';

export interface Mailer {
  send(m: { to: string; subject: string; text: string }): Promise<void>;
}

/**
 * Outgoing mail over SMTP (`SMTP_URL`). Without it, the message is written to the server log instead, so
 * a fresh install can still reset a password; that is the only place a one-time link is ever logged.
 */
export function createMailer(o: { smtpUrl?: string; from: string; log: pino.Logger }): Mailer {
  const transport: Transporter | null = o.smtpUrl ? nodemailer.createTransport(o.smtpUrl) : null;
  return {
    async send(m) {
      if (!transport) {
        o.log.info({ mail: { to: m.to, subject: m.subject } }, `e-mail not sent (SMTP_URL is not set):\n${m.text}`);
        return;
      }
      await transport.sendMail({ from: o.from, to: m.to, subject: m.subject, text: m.text });
    },
  };
}

import type { AddressInfo } from 'node:net';
import type pino from 'pino';
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import { type DB, isUniqueViolation } from '../../platform/db/db.js';
import type { PemPair } from '../../platform/pemPair.js';
import type { Conversations } from '../messages/index.js';
import { type MailboxRef, storeMail } from './commands/storeMail.js';
import { findForwardedMailbox, type MailboxRow, parseForwardingAddress } from './mailboxes.queries.js';
import { parseMail } from './parseMail.js';

export interface InboundSmtpDeps {
  db: DB;
  conversations: Conversations;
  dataDir: string;
  log: pino.Logger;
  host: string;
  /** 0: any free port (tests); `port` tells which one was taken. */
  port: number;
  /** The domain of the forwarding addresses; mail to any other domain is refused. */
  domain: string;
  /** The largest mail taken, in bytes as sent: larger ones get 552. */
  maxBytes: number;
  /** STARTTLS's key and certificate (PEM); null: no STARTTLS offered. */
  tls: PemPair | null;
}

/** An SMTP answer of ours: the code and the words the forwarding server logs (and puts in its bounce). */
const answer = (responseCode: number, message: string) => Object.assign(new Error(message), { responseCode });

const refBox = (r: MailboxRow): MailboxRef => ({
  id: Number(r.id),
  accountId: Number(r.account_id),
  address: r.address,
  departmentId: r.department_id === null ? null : Number(r.department_id),
});

/** Reads a DATA stream whole, keeping at most `max` bytes (the rest is drained so the session goes on). */
function readData(stream: SMTPServerDataStream, max: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on('data', (d: Buffer) => {
      size += d.length;
      if (size <= max) chunks.push(d);
    });
    stream.on('error', reject);
    stream.on('end', () => resolve(stream.sizeExceeded || size > max ? null : Buffer.concat(chunks)));
  });
}

/**
 * The inbound SMTP listener for teams that forward their mail (INBOUND_SMTP_PORT; docs/email.md, "In by
 * forwarding"). Each mailbox has a forwarding address `mbx-<id>-<token>@<domain>`; RCPT TO anything else is
 * refused with 550 there and then. A mail taken is stored through `storeMail` like fetched mail (threading,
 * noise, attachments, Message-ID dedup), once per mailbox it was sent to (so per account), and 250 is
 * answered only after every store committed: a failure answers 451 and the forwarding server tries again,
 * which the Message-ID makes harmless.
 */
export class InboundSmtp {
  private server: SMTPServer | null = null;
  private bound = 0;

  constructor(private readonly deps: InboundSmtpDeps) {}

  /** The port it listens on (after `start`). */
  get port(): number {
    return this.bound;
  }

  async start(): Promise<void> {
    if (this.server) return;
    const { deps } = this;
    const server = new SMTPServer({
      name: deps.domain,
      banner: 'Parley inbound mail',
      // No login: a forwarding server proves nothing but the address's secret. STARTTLS only when the
      // installation gave a key and certificate (INBOUND_SMTP_TLS_*); otherwise plain SMTP behind its MTA.
      authOptional: true,
      disabledCommands: deps.tls ? ['AUTH'] : ['AUTH', 'STARTTLS'],
      ...(deps.tls ? { key: deps.tls.key, cert: deps.tls.cert } : {}),
      size: deps.maxBytes,
      maxClients: 100,
      socketTimeout: 60_000,
      closeTimeout: 10_000,
      logger: false,
      onRcptTo: (address, _session, done) => {
        this.mailboxOf(address.address).then(
          (box) => (box ? done() : done(answer(550, `5.1.1 <${address.address}>: no such forwarding address`))),
          (err) => {
            deps.log.warn({ err }, 'inbound smtp: recipient lookup failed');
            done(answer(451, '4.3.0 Temporary failure, please try again later'));
          },
        );
      },
      onData: (stream, session, done) => {
        this.take(stream, session).then(
          () => done(),
          (err: Error & { responseCode?: number }) => {
            if (!err.responseCode) {
              deps.log.warn({ err: { message: err.message } }, 'inbound smtp: mail not stored');
              return done(answer(451, '4.3.0 The mail could not be stored, please try again later'));
            }
            done(err);
          },
        );
      },
    });
    server.on('error', (err) => deps.log.warn({ err: { message: err.message } }, 'inbound smtp error'));
    await new Promise<void>((resolve, reject) => {
      server.server.once('error', reject);
      server.listen(deps.port, deps.host, () => {
        server.server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    this.bound = (server.server.address() as AddressInfo).port;
    deps.log.info({ host: deps.host, port: this.bound, domain: deps.domain }, 'inbound smtp listening');
  }

  /** Stops taking connections and waits for the sessions open (their mails finish storing first). */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** The active mailbox a forwarding address names (its token must match), or undefined. */
  private async mailboxOf(address: string): Promise<MailboxRow | undefined> {
    const named = parseForwardingAddress(address, this.deps.domain);
    return named ? findForwardedMailbox(this.deps.db, named.id, named.token) : undefined;
  }

  private async take(stream: SMTPServerDataStream, session: SMTPServerSession): Promise<void> {
    const source = await readData(stream, this.deps.maxBytes);
    if (!source) throw answer(552, `5.3.4 The mail is larger than ${this.deps.maxBytes} bytes`);
    let mail: Awaited<ReturnType<typeof parseMail>>;
    try {
      mail = await parseMail(source);
    } catch {
      // Trying again would read the same bytes: refused for good, so the sender's bounce tells its author.
      throw answer(554, '5.6.0 The mail cannot be read as MIME');
    }
    // Looked up again: a mailbox removed or switched off since RCPT TO gets nothing.
    const boxes = new Map<number, MailboxRow>();
    for (const r of session.envelope.rcptTo) {
      const box = await this.mailboxOf(r.address);
      if (box) boxes.set(Number(box.id), box);
    }
    for (const box of boxes.values()) {
      const ref = refBox(box);
      try {
        await storeMail(this.deps, ref, null, mail);
      } catch (err) {
        // The same Message-ID committed meanwhile by another way in (IMAP, another session): now a duplicate.
        if (!isUniqueViolation(err)) throw err;
        await storeMail(this.deps, ref, null, mail);
      }
    }
  }
}

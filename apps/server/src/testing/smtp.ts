import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

/**
 * A real SMTP server on loopback that keeps what it takes. Recipients for which `refuse` returns a text are
 * refused with 550 and that text (the server's own response line, as a real one would give it).
 */
export async function smtpSink(o: { refuse?: (address: string) => string | null; delayMs?: number } = {}) {
  const mail: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    onRcptTo(address, _session, done) {
      const refused = o.refuse?.(address.address);
      if (!refused) return done();
      done(Object.assign(new Error(refused), { responseCode: 550 }));
    },
    onData(stream, session, done) {
      let raw = '';
      stream.on('data', (d: Buffer) => {
        raw += d.toString();
      });
      stream.on('end', async () => {
        // A slow mail server: the message is taken only after this long.
        if (o.delayMs) await new Promise((r) => setTimeout(r, o.delayMs));
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
  return { port, mail, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

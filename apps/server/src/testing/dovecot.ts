import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ImapFlow } from 'imapflow';

export const DOVECOT = '/usr/sbin/dovecot';
export const hasDovecot = fs.existsSync(DOVECOT);

/** A free TCP port on loopback. */
export async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

async function waitForPort(port: number, ms: number): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const c = net.connect(port, '127.0.0.1');
      c.once('connect', () => {
        c.destroy();
        resolve(true);
      });
      c.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > until) throw new Error(`dovecot did not listen on ${port}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface Dovecot {
  port: number;
  /** Users and their password (`user@example.test` / `secret`). */
  users: string[];
  password: string;
  /** Appends a raw mail to a user's INBOX (unread); its UID. */
  append(user: string, raw: string | Buffer): Promise<number | undefined>;
  stop(): Promise<void>;
}

/**
 * A real Dovecot IMAP server on loopback for a test: its own config, passwd file and maildir in a temp dir,
 * on a free port; `stop()` ends it and removes the dir (see RECIPES "E-mail").
 */
export async function startDovecot(users: string[]): Promise<Dovecot> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-dovecot-'));
  const home = path.join(dir, 'home');
  fs.mkdirSync(home);
  fs.mkdirSync(path.join(dir, 'run'));
  // The mail processes run as nobody: the mail homes must be theirs to write.
  fs.chmodSync(home, 0o777);
  fs.chmodSync(dir, 0o755);
  const password = 'secret';
  fs.writeFileSync(path.join(dir, 'passwd'), users.map((u) => `${u}:{PLAIN}${password}\n`).join(''));
  const port = await freePort();
  fs.writeFileSync(
    path.join(dir, 'dovecot.conf'),
    `protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
base_dir = ${dir}/run
log_path = ${dir}/dovecot.log
mail_uid = nobody
mail_gid = nogroup
first_valid_uid = 1
mail_location = maildir:${home}/%u/Maildir
passdb {
  driver = passwd-file
  args = scheme=PLAIN ${dir}/passwd
}
userdb {
  driver = static
  args = uid=nobody gid=nogroup home=${home}/%u
}
service imap-login {
  inet_listener imap {
    port = ${port}
  }
}
`,
  );
  const proc: ChildProcess = spawn(DOVECOT, ['-F', '-c', path.join(dir, 'dovecot.conf')], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  await waitForPort(port, 10_000);
  const clients = new Map<string, ImapFlow>();
  return {
    port,
    users,
    password,
    async append(user, raw) {
      let c = clients.get(user);
      if (!c) {
        c = new ImapFlow({ host: '127.0.0.1', port, secure: false, auth: { user, pass: password }, logger: false });
        c.on('error', () => {});
        await c.connect();
        clients.set(user, c);
      }
      const r = await c.append('INBOX', raw);
      return r ? r.uid : undefined;
    },
    async stop() {
      for (const c of clients.values()) await c.logout().catch(() => c.close());
      proc.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A raw RFC 5322 mail (CRLF line ends). */
export function rawMail(o: {
  from: string;
  to: string;
  subject: string;
  messageId: string;
  text?: string;
  inReplyTo?: string;
  references?: string;
  headers?: Record<string, string>;
  attachment?: { name: string; type: string; content: Buffer };
}): string {
  const head = [
    `From: ${o.from}`,
    `To: ${o.to}`,
    `Subject: ${o.subject}`,
    `Message-ID: <${o.messageId}>`,
    'Date: Fri, 27 Nov 2026 12:00:00 +0000',
    'MIME-Version: 1.0',
    ...(o.inReplyTo ? [`In-Reply-To: <${o.inReplyTo}>`] : []),
    ...(o.references ? [`References: ${o.references}`] : []),
    ...Object.entries(o.headers ?? {}).map(([k, v]) => `${k}: ${v}`),
  ];
  const text = o.text ?? 'Hello';
  if (!o.attachment) return [...head, 'Content-Type: text/plain; charset=utf-8', '', text, ''].join('\r\n');
  const b = 'parley-boundary';
  const content = o.attachment.content.toString('base64').replace(/.{76}/g, '$&\r\n');
  return [
    ...head,
    `Content-Type: multipart/mixed; boundary="${b}"`,
    '',
    `--${b}`,
    'Content-Type: text/plain; charset=utf-8',
    '',
    text,
    `--${b}`,
    `Content-Type: ${o.attachment.type}; name="${o.attachment.name}"`,
    `Content-Disposition: attachment; filename="${o.attachment.name}"`,
    'Content-Transfer-Encoding: base64',
    '',
    content,
    `--${b}--`,
    '',
  ].join('\r\n');
}

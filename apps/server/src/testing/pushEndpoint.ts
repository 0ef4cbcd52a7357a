import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
// @ts-expect-error http_ece (a web-push dependency) ships no types.
import ece from 'http_ece';

/** A self-signed certificate for 127.0.0.1, made with openssl. */
export function selfSigned(): { key: string; cert: string; certFile: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-push-'));
  const keyFile = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { stdio: 'ignore' },
  );
  return { key: fs.readFileSync(keyFile, 'utf8'), cert: fs.readFileSync(certFile, 'utf8'), certFile };
}

export interface Received {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/**
 * A stand-in push service speaking the Web Push protocol over HTTPS: it answers 201 and keeps each request.
 * `subscription()` makes a browser-like key pair and auth secret; `decrypt()` opens an aes128gcm body with them.
 * The server's push tests and the e2e tests (e2e/webPush.e2e.test.ts) both use this one.
 */
export async function startPushEndpoint() {
  const tls = selfSigned();
  const received: Received[] = [];
  const server = https.createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
      const gone = (req.url ?? '').includes('/gone/');
      res.writeHead(gone ? 410 : 201).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  const ecdh = crypto.createECDH('prime256v1');
  ecdh.generateKeys();
  const authSecret = crypto.randomBytes(16);
  return {
    received,
    /** The PUSH_ALLOWED_HOSTS entry that lets the server send here (a loopback address is refused otherwise). */
    allowedHost: `127.0.0.1:${port}`,
    certFile: tls.certFile,
    agent: new https.Agent({ ca: tls.cert }),
    subscription: (name: string) => ({
      endpoint: `https://127.0.0.1:${port}/push/${name}`,
      expirationTime: null,
      keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: authSecret.toString('base64url') },
    }),
    decrypt: (body: Buffer): string =>
      ece
        .decrypt(body, { version: 'aes128gcm', privateKey: ecdh, authSecret: authSecret.toString('base64url') })
        .toString('utf8'),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

import { createPrivateKey, X509Certificate } from 'node:crypto';
import fs from 'node:fs';

/** A private key and its certificate, PEM text as read from their files. */
export interface PemPair {
  key: string;
  cert: string;
}

/**
 * A key file and a certificate file named by two settings, read and checked at start: both or neither (null),
 * and a key that is not a private key or a certificate that is not X.509 stops the server with the reason,
 * rather than failing at the first use.
 */
export function loadPemPair(
  keyFile: string | undefined,
  certFile: string | undefined,
  names: { key: string; cert: string },
): PemPair | null {
  if (!keyFile && !certFile) return null;
  if (!keyFile || !certFile) throw new Error(`${names.key} and ${names.cert} go together: set both or neither.`);
  const key = fs.readFileSync(keyFile, 'utf8');
  const cert = fs.readFileSync(certFile, 'utf8');
  try {
    createPrivateKey(key);
  } catch {
    throw new Error(`${names.key} (${keyFile}) is not a PEM private key.`);
  }
  try {
    new X509Certificate(cert);
  } catch {
    throw new Error(`${names.cert} (${certFile}) is not a PEM certificate.`);
  }
  return { key, cert };
}

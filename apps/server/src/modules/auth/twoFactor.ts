import { createHash, randomInt } from 'node:crypto';
import { generateSecret, generateURI, verify } from 'otplib';
import QRCode from 'qrcode';

/** A new TOTP secret, its otpauth:// URI and that URI as a QR code (an SVG data URL). */
export async function newTotp(issuer: string, label: string) {
  const secret = generateSecret();
  const uri = generateURI({ issuer, label, secret });
  const svg = await QRCode.toString(uri, { type: 'svg', margin: 1 });
  return { secret, uri, qr: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}` };
}

/** One step either side is accepted, for clocks that drift. */
export async function checkTotp(secret: string, code: string): Promise<boolean> {
  if (!/^\d{6}$/.test(code)) return false;
  try {
    return (await verify({ secret, token: code, epochTolerance: 30 })).valid;
  } catch {
    return false;
  }
}

const hashCode = (code: string) => createHash('sha256').update(code.replace(/-/g, '')).digest('hex');

/** Ten single-use backup codes `12345-67890`; only their hashes are stored. */
export function newBackupCodes(): { codes: string[]; hashes: string[] } {
  const codes = Array.from({ length: 10 }, () => {
    const d = String(randomInt(0, 10_000_000_000)).padStart(10, '0');
    return `${d.slice(0, 5)}-${d.slice(5)}`;
  });
  return { codes, hashes: codes.map(hashCode) };
}

/** The hashes left after using `code`, or null when it is not one of them. */
export function consumeBackupCode(hashes: string[], code: string): string[] | null {
  const h = hashCode(code);
  return hashes.includes(h) ? hashes.filter((x) => x !== h) : null;
}

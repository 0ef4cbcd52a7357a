import { createHash, randomInt } from 'node:crypto';
import { generateSecret, generateURI, verify } from 'otplib';
import type { DB } from '../../platform/db/db.js';

/** A new TOTP secret, its otpauth:// URI and that URI as a QR code (an SVG data URL). */
export async function newTotp(issuer: string, label: string) {
  const secret = generateSecret();
  const uri = generateURI({ issuer, label, secret });
  const { default: QRCode } = await import('qrcode');
  const svg = await QRCode.toString(uri, { type: 'svg', margin: 1 });
  return { secret, uri, qr: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}` };
}

/** The time step of a right code, or null; one step either side is accepted, for clocks that drift. */
export async function totpStep(secret: string, code: string): Promise<number | null> {
  if (!/^\d{6}$/.test(code)) return null;
  try {
    const r = await verify({ secret, token: code, epochTolerance: 30 });
    return r.valid && 'timeStep' in r ? r.timeStep : null;
  } catch {
    return null;
  }
}

/**
 * Uses a TOTP code of a user: true when it is right and of a later time step than any code they used before,
 * which is remembered (`users.totp_last_step`). A code works once: again, or after a newer one, it is refused,
 * also when two requests bring it at the same moment (only one moves the step on).
 */
export async function useTotp(
  db: Pick<DB, 'updateTable'>,
  user: { accountId: number; userId: number; secret: string },
  code: string,
): Promise<boolean> {
  const step = await totpStep(user.secret, code);
  if (step === null) return false;
  const r = await db
    .updateTable('users')
    .set({ totp_last_step: step })
    .where('account_id', '=', user.accountId)
    .where('id', '=', user.userId)
    .where('totp_last_step', '<', step)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
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

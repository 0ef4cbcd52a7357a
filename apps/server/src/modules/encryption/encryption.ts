import { createHash, createPublicKey } from 'node:crypto';
import { ENCRYPTION_STRINGS, type EncryptionKeyInput, type EncryptionKeyItem, parseEnvelope } from '@parley/contracts';
import type { AuthContext } from '../../platform/auth/sessions.js';
import type { DB } from '../../platform/db/db.js';
import { badRequest } from '../../platform/http/errors.js';
import { runCommand } from '../../platform/outbox/index.js';
import { recordAudit } from '../audit/recordAudit.js';

/**
 * CRYPT-02, CRYPT-04: the RSA public key's id, as the browser computes it: the first 8 bytes of the SHA-256 of
 * its SPKI (DER), in hex. Refuses anything but an RSA public key of 2048 bits or more.
 */
export function rsaKeyId(pem: string): string {
  let der: Buffer;
  try {
    const key = createPublicKey({ key: pem, format: 'pem' });
    const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
    if (key.asymmetricKeyType !== 'rsa' || bits < 2048) throw new Error('not RSA-2048+');
    der = key.export({ type: 'spki', format: 'der' });
  } catch {
    throw badRequest(ENCRYPTION_STRINGS.badPublicKey);
  }
  return createHash('sha256').update(der).digest('hex').slice(0, 16);
}

/** The account's published keys, of its active users, oldest user first. */
export async function listKeys(db: DB, accountId: number): Promise<EncryptionKeyItem[]> {
  const rows = await db
    .selectFrom('encryption_keys as k')
    .innerJoin('users as u', 'u.id', 'k.user_id')
    .select(['u.username', 'u.name', 'k.method', 'k.key_type', 'k.key_value', 'k.kid', 'k.updated_at'])
    .where('k.account_id', '=', accountId)
    .where('u.account_id', '=', accountId)
    .where('u.active', '=', 1)
    .orderBy('u.id')
    .orderBy('k.method')
    .execute();
  return rows.map((r) => ({
    username: r.username,
    name: r.name || r.username,
    method: r.method as EncryptionKeyItem['method'],
    key_type: r.key_type as EncryptionKeyItem['key_type'],
    key_value: r.key_value,
    kid: r.kid,
    updated_at: Number(r.updated_at),
  }));
}

/** Publishes the caller's key of a method, replacing the one before (a rotation); audited. */
export async function publishKey(db: DB, auth: AuthContext, input: EncryptionKeyInput): Promise<EncryptionKeyItem> {
  const keyValue = input.key_value.trim();
  const kid = input.method === 'rsa' ? rsaKeyId(keyValue) : keyValue;
  const now = Date.now();
  await runCommand(db, async (trx) => {
    const before = await trx
      .selectFrom('encryption_keys')
      .select(['id', 'kid'])
      .where('account_id', '=', auth.accountId)
      .where('user_id', '=', auth.userId)
      .where('method', '=', input.method)
      .executeTakeFirst();
    const values = { key_type: input.key_type, key_value: keyValue, kid, updated_at: now };
    if (before) await trx.updateTable('encryption_keys').set(values).where('id', '=', before.id).execute();
    else
      await trx
        .insertInto('encryption_keys')
        .values({ account_id: auth.accountId, user_id: auth.userId, method: input.method, ...values })
        .execute();
    await recordAudit(trx, {
      accountId: auth.accountId,
      userId: auth.userId,
      actor: auth.username,
      action: 'encryption.key_published',
      detail: { method: input.method, kid, ...(before ? { replaced: before.kid } : {}) },
    });
  });
  return {
    username: auth.username,
    name: auth.name || auth.username,
    method: input.method,
    key_type: input.key_type,
    key_value: keyValue,
    kid,
    updated_at: now,
  };
}

/** The ticket's encryption method ('' for a plain ticket). */
export const isEncrypted = (method: string | null | undefined) => method === 'aes' || method === 'rsa';

/**
 * What the server asks of a message sent to an encrypted ticket (CRYPT-01, CRYPT-11): its text is an envelope
 * of the ticket's method, with no files and no translation. This is how the server makes sure it never
 * receives plaintext of an encrypted conversation: anything else is a 400 and nothing is stored.
 */
export function checkEncryptedMessage(
  method: string,
  m: { type: string; message: string; hasFiles: boolean; translated: boolean },
): void {
  if (m.hasFiles) throw badRequest(ENCRYPTION_STRINGS.noFiles);
  if (m.translated) throw badRequest(ENCRYPTION_STRINGS.noTranslation);
  const e = m.type === 'text' ? parseEnvelope(m.message) : null;
  if (!e) throw badRequest(ENCRYPTION_STRINGS.notEnvelope);
  if (e.m !== method) throw badRequest(ENCRYPTION_STRINGS.wrongMethod(method));
}

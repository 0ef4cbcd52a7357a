import type { CacheItem, CacheProvider } from '@node-saml/node-saml';
import { hashToken } from '../../platform/auth/tokens.js';
import type { DB } from '../../platform/db/db.js';

/** How long a sign-in may take at the identity provider before it must be started again. */
export const REQUEST_TTL_MS = 10 * 60_000;

export interface PendingRequest {
  nonce: string;
  verifier: string;
}

/** Keeps a sign-in under way (its key by SHA-256), readable on every node, for REQUEST_TTL_MS. */
export async function saveRequest(
  db: DB,
  r: { accountId: number; kind: 'oidc' | 'saml'; key: string; nonce?: string; verifier?: string },
): Promise<number> {
  const at = Date.now();
  // Old ones go on the way; nothing else reads them.
  await db.deleteFrom('sso_requests').where('expires_at', '<=', at).execute();
  await db
    .insertInto('sso_requests')
    .values({
      account_id: r.accountId,
      kind: r.kind,
      key_hash: hashToken(r.key),
      nonce: r.nonce ?? '',
      verifier: r.verifier ?? '',
      created_at: at,
      expires_at: at + REQUEST_TTL_MS,
    })
    .execute();
  return at;
}

/** Takes a sign-in under way once: the row is gone afterwards, so a second use of it finds nothing. */
export async function takeRequest(
  db: DB,
  r: { accountId: number; kind: 'oidc' | 'saml'; key: string },
): Promise<PendingRequest | null> {
  const row = await db
    .deleteFrom('sso_requests')
    .where('account_id', '=', r.accountId)
    .where('kind', '=', r.kind)
    .where('key_hash', '=', hashToken(r.key))
    .where('expires_at', '>', Date.now())
    .returning(['nonce', 'verifier'])
    .executeTakeFirst();
  return row ?? null;
}

/**
 * node-saml's store of the request ids it sent (InResponseTo is checked against it), kept in the database
 * so the response may come back to any node. A removed id is gone: a replayed response is refused.
 */
export function samlRequestCache(db: DB, accountId: number): CacheProvider {
  return {
    async saveAsync(key: string, value: string): Promise<CacheItem | null> {
      const createdAt = await saveRequest(db, { accountId, kind: 'saml', key, nonce: value });
      return { value, createdAt };
    },
    async getAsync(key: string): Promise<string | null> {
      const row = await db
        .selectFrom('sso_requests')
        .select('nonce')
        .where('account_id', '=', accountId)
        .where('kind', '=', 'saml')
        .where('key_hash', '=', hashToken(key))
        .where('expires_at', '>', Date.now())
        .executeTakeFirst();
      return row ? row.nonce || 'sent' : null;
    },
    async removeAsync(key: string | null): Promise<string | null> {
      if (!key) return null;
      const taken = await takeRequest(db, { accountId, kind: 'saml', key });
      return taken ? key : null;
    },
  };
}

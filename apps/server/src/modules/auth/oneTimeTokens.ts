import { hashToken, newToken } from '../../platform/auth/tokens.js';
import type { DB } from '../../platform/db/db.js';
import type { Trx } from '../../platform/outbox/index.js';

type Purpose = 'reset' | 'handoff';

/** Issues a single-use token for a user; only its hash is stored. */
export async function issueOneTimeToken(
  db: DB | Trx,
  t: { accountId: number; userId: number; purpose: Purpose; ttlMs: number },
): Promise<string> {
  const token = newToken();
  const at = Date.now();
  await db
    .insertInto('one_time_tokens')
    .values({
      account_id: t.accountId,
      user_id: t.userId,
      purpose: t.purpose,
      token_hash: hashToken(token),
      created_at: at,
      expires_at: at + t.ttlMs,
      used_at: null,
    })
    .execute();
  return token;
}

/** Uses a token up: the user it was for, or null when it is unknown, used, expired or for another purpose. */
export async function consumeOneTimeToken(
  db: DB | Trx,
  token: string,
  purpose: Purpose,
): Promise<{ accountId: number; userId: number } | null> {
  const at = Date.now();
  const row = await db
    .selectFrom('one_time_tokens')
    .select(['id', 'account_id', 'user_id'])
    .where('token_hash', '=', hashToken(token))
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', at)
    .executeTakeFirst();
  if (!row) return null;
  const r = await db
    .updateTable('one_time_tokens')
    .set({ used_at: at })
    .where('id', '=', row.id)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) !== 1) return null;
  return { accountId: Number(row.account_id), userId: Number(row.user_id) };
}

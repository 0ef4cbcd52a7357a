import { API_TOKEN_PREFIX, type ApiTokenScope } from '@parley/contracts';
import { type Clock, systemClock } from '../clock.js';
import type { DB } from '../db/db.js';
import { type AuthContext, authOf, USER_AUTH_COLUMNS } from './sessions.js';
import { hashToken } from './tokens.js';

// Writing last_used_at on every call would turn each read into a write; once a minute is enough.
export const API_TOKEN_TOUCH_MS = 60_000;

/** Whether a bearer token is an API token (they carry a prefix; session tokens never do). */
export const isApiToken = (token: string) => token.startsWith(API_TOKEN_PREFIX);

/**
 * The caller behind an API token, or null when it is unknown, revoked, its user inactive, or (an account
 * token) its maker no longer an admin. A personal token acts as its user with the user's rights as they are
 * now (never more); an account token acts with admin rights under its maker's name. Read on every call, not
 * cached: a revocation takes effect at once on every node.
 */
export async function resolveApiToken(db: DB, token: string, clock: Clock = systemClock): Promise<AuthContext | null> {
  if (token.length > 200) return null;
  const row = await db
    .selectFrom('api_tokens as t')
    .innerJoin('users as u', (j) => j.onRef('u.id', '=', 't.user_id').onRef('u.account_id', '=', 't.account_id'))
    .innerJoin('accounts as a', 'a.id', 't.account_id')
    .select(['t.id', 't.account_id', 't.user_id', 't.kind', 't.scopes', 't.last_used_at', ...USER_AUTH_COLUMNS])
    .where('t.token_hash', '=', hashToken(token))
    .where('t.revoked_at', 'is', null)
    .where('u.active', '=', 1)
    .executeTakeFirst();
  if (!row) return null;
  if (row.kind === 'account' && row.type !== 'admin') return null;
  const at = clock();
  if (row.last_used_at === null || at - Number(row.last_used_at) >= API_TOKEN_TOUCH_MS) {
    await db.updateTable('api_tokens').set({ last_used_at: at }).where('id', '=', row.id).execute();
  }
  // No session: `sessionId` is 0, and `apiToken` says what the token may do.
  return {
    ...authOf({ ...row, id: 0 }),
    apiToken: { id: Number(row.id), scopes: JSON.parse(row.scopes) as ApiTokenScope[] },
  };
}

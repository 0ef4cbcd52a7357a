import {
  API_TOKEN_PREFIX,
  type ApiTokenInput,
  type ApiTokenItem,
  type ApiTokenKind,
  type ApiTokenScope,
  INTEGRATION_STRINGS,
} from '@parley/contracts';
import type { AuthContext } from '../../platform/auth/sessions.js';
import { hashToken, newToken } from '../../platform/auth/tokens.js';
import type { DB } from '../../platform/db/db.js';
import { forbidden, notFound } from '../../platform/http/errors.js';
import { runCommand, type Trx } from '../../platform/outbox/index.js';

/** Tokens are managed in a signed-in session: a token that could make or revoke tokens could outlive its revocation. */
export function refuseApiTokenCaller(auth: AuthContext): void {
  if (auth.apiToken) throw forbidden(INTEGRATION_STRINGS.tokensNotHere);
}

function tokensQuery(db: DB | Trx, accountId: number) {
  return db
    .selectFrom('api_tokens as t')
    .innerJoin('users as u', (j) => j.onRef('u.id', '=', 't.user_id').onRef('u.account_id', '=', 't.account_id'))
    .select(['t.id', 't.name', 't.kind', 't.scopes', 't.hint', 't.user_id', 'u.name as user_name', 't.created_at'])
    .select('t.last_used_at')
    .where('t.account_id', '=', accountId)
    .where('t.revoked_at', 'is', null);
}

type TokenRow = Awaited<ReturnType<ReturnType<typeof tokensQuery>['executeTakeFirstOrThrow']>>;

const toItem = (r: TokenRow): ApiTokenItem => ({
  id: Number(r.id),
  name: r.name,
  kind: r.kind as ApiTokenKind,
  scopes: JSON.parse(r.scopes) as ApiTokenScope[],
  hint: r.hint,
  userId: Number(r.user_id),
  userName: r.user_name,
  createdAt: Number(r.created_at),
  lastUsedAt: r.last_used_at === null ? null : Number(r.last_used_at),
});

/**
 * The tokens a caller sees and may revoke: their own personal tokens, and for an admin also the account's
 * tokens. Another user's personal token is nobody else's business (404 like another account's).
 */
function visibleTokens(db: DB | Trx, auth: AuthContext) {
  return tokensQuery(db, auth.accountId).where((eb) =>
    eb.or([
      eb.and([eb('t.kind', '=', 'personal'), eb('t.user_id', '=', auth.userId)]),
      ...(auth.type === 'admin' ? [eb('t.kind', '=', 'account')] : []),
    ]),
  );
}

/** The caller's tokens (see `visibleTokens`), newest first. */
export async function listApiTokens(db: DB, auth: AuthContext): Promise<ApiTokenItem[]> {
  const rows = await visibleTokens(db, auth).orderBy('t.id', 'desc').execute();
  return rows.map(toItem);
}

/** Makes a token; the answer carries it once (only its SHA-256 is kept). Account tokens are admins' to make. */
export async function createApiToken(
  db: DB,
  auth: AuthContext,
  input: Required<Pick<ApiTokenInput, 'name' | 'scope'>> & { kind: ApiTokenKind },
): Promise<{ item: ApiTokenItem; token: string }> {
  if (input.kind === 'account' && auth.type !== 'admin') throw forbidden(INTEGRATION_STRINGS.accountTokensAdmins);
  const token = `${API_TOKEN_PREFIX}${newToken()}`;
  const scopes: ApiTokenScope[] = input.scope === 'write' ? ['read', 'write'] : ['read'];
  const item = await runCommand(db, async (trx) => {
    const { id } = await trx
      .insertInto('api_tokens')
      .values({
        account_id: auth.accountId,
        user_id: auth.userId,
        kind: input.kind,
        name: input.name.trim(),
        token_hash: hashToken(token),
        hint: token.slice(0, API_TOKEN_PREFIX.length + 4),
        scopes: JSON.stringify(scopes),
        created_at: Date.now(),
        last_used_at: null,
        revoked_at: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return toItem(await tokensQuery(trx, auth.accountId).where('t.id', '=', Number(id)).executeTakeFirstOrThrow());
  });
  return { item, token };
}

/**
 * Revokes a token at once (the guard reads tokens on every call). Someone's own personal token, or for an
 * admin an account token; anything else (another account's, another user's personal token) is 404.
 */
export async function revokeApiToken(db: DB, auth: AuthContext, id: number): Promise<void> {
  await runCommand(db, async (trx) => {
    const row = await visibleTokens(trx, auth).where('t.id', '=', id).executeTakeFirst();
    if (!row) throw notFound(INTEGRATION_STRINGS.tokenNotFound);
    await trx
      .updateTable('api_tokens')
      .set({ revoked_at: Date.now() })
      .where('account_id', '=', auth.accountId)
      .where('id', '=', id)
      .execute();
  });
}

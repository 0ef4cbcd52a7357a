import { createHash, randomBytes } from 'node:crypto';
import { ErrorCode, type LiveChatSettings, VISITOR_STRINGS } from '@parley/contracts';
import type { DB } from '../../platform/db/db.js';
import { AppError, notFound } from '../../platform/http/errors.js';
import type { Trx } from '../../platform/outbox/index.js';

/** A csrf (or any secret) is stored only as its SHA-256. */
export const hashSecret = (s: string) => createHash('sha256').update(s).digest('hex');
export const newSecret = () => randomBytes(24).toString('base64url');

/** The account's live chat settings, created with a new link token on first use. */
export async function ensureSettings(db: DB | Trx, accountId: number): Promise<LiveChatSettings> {
  let row = await db.selectFrom('livechat_settings').selectAll().where('account_id', '=', accountId).executeTakeFirst();
  if (!row) {
    await db
      .insertInto('livechat_settings')
      .values({ account_id: accountId, token: randomBytes(16).toString('hex'), created_at: Date.now() })
      .onConflict((oc) => oc.column('account_id').doNothing())
      .execute();
    row = await db
      .selectFrom('livechat_settings')
      .selectAll()
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
  }
  return {
    token: row.token,
    auto_offer: Number(row.auto_offer) === 1,
    department_id: row.department_id === null ? null : Number(row.department_id),
    offer_seconds: Number(row.offer_seconds),
  };
}

/** The account a visitor link token belongs to (and its name), or undefined for a forged or old token. */
export async function accountByToken(db: DB | Trx, token: string) {
  const row = await db
    .selectFrom('livechat_settings')
    .innerJoin('accounts', 'accounts.id', 'livechat_settings.account_id')
    .select([
      'accounts.id as accountId',
      'accounts.name as name',
      'accounts.plan as plan',
      'livechat_settings.auto_offer as autoOffer',
      'livechat_settings.department_id as departmentId',
      'livechat_settings.offer_seconds as offerSeconds',
    ])
    .where('livechat_settings.token', '=', token)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    accountId: Number(row.accountId),
    name: row.name,
    plan: Number(row.plan),
    autoOffer: Number(row.autoOffer) === 1,
    departmentId: row.departmentId === null ? null : Number(row.departmentId),
    offerSeconds: Number(row.offerSeconds),
  };
}
export type TokenAccount = NonNullable<Awaited<ReturnType<typeof accountByToken>>>;

/** The visitor session a csrf belongs to, within the token's account. */
export async function visitorByCsrf(db: DB | Trx, accountId: number, csrf: string) {
  const row = await db
    .selectFrom('livechat_visitors')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('csrf_hash', '=', hashSecret(csrf))
    .executeTakeFirst();
  return row ? { id: Number(row.id), accountId: Number(row.account_id), name: row.name } : undefined;
}

/** The latest live chat of a visitor. */
export async function latestChat(db: DB | Trx, accountId: number, visitorId: number) {
  return db
    .selectFrom('livechats')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('visitor_id', '=', visitorId)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** A visitor link that is forged, old or of an account without live chat. */
export const invalidLink = () => notFound(VISITOR_STRINGS.invalidLink);

/** The account of a token and the visitor of a csrf, or a 404 / 403 that changes nothing. */
export async function visitorOf(db: DB | Trx, token: string, csrf: string) {
  const account = await accountByToken(db, token);
  if (!account) throw invalidLink();
  const visitor = await visitorByCsrf(db, account.accountId, csrf);
  if (!visitor) throw new AppError(403, ErrorCode.forbidden, VISITOR_STRINGS.sessionEnded);
  return { account, visitor };
}

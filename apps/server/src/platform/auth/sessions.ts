import { SESSION_TTL_DAYS, type UserType } from '@parley/contracts';
import type { Transaction } from 'kysely';
import { type Clock, systemClock } from '../clock.js';
import type { DB } from '../db/db.js';
import type { Database } from '../db/schema.js';
import { hashToken, newToken } from './tokens.js';

/** Who is calling: resolved from a session token on every authenticated request and socket. */
export interface AuthContext {
  sessionId: number;
  accountId: number;
  userId: number;
  username: string;
  name: string;
  type: UserType;
  /**
   * The account requires two-factor sign-in and this user has not set it up: until they do, only the setup
   * and sign-out answer them (see the auth guard). Set on every resolved session.
   */
  tfaSetupRequired?: boolean;
  /** Set when the caller is an API token (`sessionId` is then 0): which one and what it may do. */
  apiToken?: { id: number; scopes: readonly string[] };
}

/** What an AuthContext needs of the user (`u`) and the account (`a`), besides the ids. */
export const USER_AUTH_COLUMNS = ['u.username', 'u.name', 'u.type', 'u.totp_enabled', 'a.require_2fa'] as const;

/** The live sessions (not revoked or expired, their user active) with what an AuthContext needs. */
function liveSessions(db: DB, at: number) {
  return db
    .selectFrom('sessions as s')
    .innerJoin('users as u', (j) => j.onRef('u.id', '=', 's.user_id').onRef('u.account_id', '=', 's.account_id'))
    .innerJoin('accounts as a', 'a.id', 's.account_id')
    .select([
      's.id',
      's.account_id',
      's.user_id',
      's.last_seen_at',
      's.expires_at',
      's.token_expires_at',
      ...USER_AUTH_COLUMNS,
    ])
    .where('s.revoked_at', 'is', null)
    .where('s.expires_at', '>', at)
    .where('u.active', '=', 1);
}

/** The caller of a row with the session's (`id`), user's and account's columns. */
export function authOf(row: {
  id: number;
  account_id: number;
  user_id: number;
  username: string;
  name: string;
  type: string;
  totp_enabled: number;
  require_2fa: number;
}): AuthContext {
  return {
    sessionId: Number(row.id),
    accountId: Number(row.account_id),
    userId: Number(row.user_id),
    username: row.username,
    name: row.name,
    type: row.type as UserType,
    tfaSetupRequired: Boolean(Number(row.require_2fa)) && !Number(row.totp_enabled),
  };
}

const TTL_MS = SESSION_TTL_DAYS * 24 * 3600 * 1000;
/** The access token is short-lived; the web app's auth check renews it with the refresh token. */
export const TOKEN_TTL_MS = 24 * 3600 * 1000;
/** Two tabs may present the same refresh token at once; within this window that is not theft. */
const ROTATION_GRACE_MS = 30_000;
// Writing last_seen on every request would turn reads into writes; once a minute is enough.
const TOUCH_EVERY_MS = 60_000;

/**
 * Sessions resolved in the last moments, by token hash. An agent's screen sends calls in bursts (a page load,
 * a list and its conversation), and each would otherwise read its session again. An entry lives `ms` (2 s by
 * default, `SESSION_CACHE_MS`) and never past the token's expiry. Every revocation and user change made by
 * this process empties every cache at once; another node's change is seen here within `ms`.
 */
export class SessionCache {
  private readonly entries = new Map<string, { auth: AuthContext; until: number }>();

  constructor(
    readonly ms: number,
    private readonly max = 10_000,
    /** Decides when an entry's time is up (tests move it by hand). */
    private readonly clock: Clock = systemClock,
  ) {
    if (ms > 0) caches.add(this);
  }

  get(hash: string, at = this.clock()): AuthContext | undefined {
    const e = this.entries.get(hash);
    if (!e) return undefined;
    if (e.until > at) return e.auth;
    this.entries.delete(hash);
    return undefined;
  }

  set(hash: string, auth: AuthContext, until: number): void {
    if (this.ms <= 0) return;
    if (this.entries.size >= this.max) this.entries.clear();
    this.entries.set(hash, { auth, until });
  }

  clear(): void {
    this.entries.clear();
  }

  /** Stops taking part (the server closed). */
  close(): void {
    this.entries.clear();
    caches.delete(this);
  }
}

const caches = new Set<SessionCache>();

/** Empties every session cache of this process: a session was ended or a user changed. */
export function forgetResolvedSessions(): void {
  for (const c of caches) c.clear();
}

type SessionsEndedHandler = (sessionIds: number[]) => void;
// Keyed by the database handle: several servers in one process (tests) must not end each other's sockets.
const endedHandlers = new WeakMap<DB, Set<SessionsEndedHandler>>();

/** Called with the ids of sessions ended through `db` (realtime disconnects their sockets on every node). */
export function onSessionsEnded(db: DB, fn: SessionsEndedHandler): () => void {
  let set = endedHandlers.get(db);
  if (!set) {
    set = new Set();
    endedHandlers.set(db, set);
  }
  set.add(fn);
  return () => set.delete(fn);
}

/**
 * Says that sessions ended (their rows are revoked and committed), or may no longer act as they did (their
 * account now requires a two-factor setup): their sockets close. The revoke functions below call it
 * themselves; one that ran inside a transaction leaves it to the caller, after the commit.
 */
export function sessionsEnded(db: DB, sessionIds: number[]): void {
  forgetResolvedSessions();
  if (sessionIds.length === 0) return;
  for (const fn of endedHandlers.get(db) ?? []) fn(sessionIds);
}

/**
 * A session by id while it is live (not revoked, not expired, its user active), else null: what a socket checks
 * before it acts, long after its handshake. The access token may have been renewed since (rotation), so
 * the token the socket connected with says nothing. Live answers are kept in `cache` for its time.
 */
export async function sessionLive(
  db: DB,
  ctx: Pick<AuthContext, 'accountId' | 'sessionId'>,
  cache?: SessionCache,
): Promise<AuthContext | null> {
  const at = Date.now();
  const key = `session:${ctx.sessionId}`;
  const cached = cache?.get(key);
  if (cached) return cached;
  const row = await liveSessions(db, at)
    .where('s.account_id', '=', ctx.accountId)
    .where('s.id', '=', ctx.sessionId)
    .executeTakeFirst();
  if (!row) return null;
  const auth = authOf(row);
  cache?.set(key, auth, Math.min(at + cache.ms, Number(row.expires_at)));
  return auth;
}

export async function createSession(
  db: Pick<DB, 'insertInto'>,
  s: { accountId: number; userId: number; userAgent?: string; ip?: string },
): Promise<{ token: string; refreshToken: string; sessionId: number }> {
  const token = newToken();
  const refreshToken = newToken();
  const at = Date.now();
  const row = await db
    .insertInto('sessions')
    .values({
      account_id: s.accountId,
      user_id: s.userId,
      token_hash: hashToken(token),
      refresh_hash: hashToken(refreshToken),
      user_agent: (s.userAgent ?? '').slice(0, 300),
      ip: s.ip ?? '',
      created_at: at,
      last_seen_at: at,
      expires_at: at + TTL_MS,
      token_expires_at: at + TOKEN_TTL_MS,
      revoked_at: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { token, refreshToken, sessionId: Number(row.id) };
}

/** The live session behind a token, or null if it is unknown, revoked, expired or its user inactive. */
export async function resolveSession(
  db: DB,
  token: string | undefined,
  cache?: SessionCache,
): Promise<AuthContext | null> {
  if (!token || token.length > 200) return null;
  const at = Date.now();
  const hash = hashToken(token);
  const cached = cache?.get(hash);
  if (cached) return cached;
  const row = await liveSessions(db, at)
    .where('s.token_hash', '=', hash)
    .where('s.token_expires_at', '>', at)
    .executeTakeFirst();
  if (!row) return null;
  if (at - Number(row.last_seen_at) > TOUCH_EVERY_MS) {
    await db.updateTable('sessions').set({ last_seen_at: at }).where('id', '=', row.id).execute();
  }
  const auth = authOf(row);
  if (cache) cache.set(hash, auth, Math.min(at + cache.ms, Number(row.expires_at), Number(row.token_expires_at)));
  return auth;
}

export async function revokeSession(db: DB, ctx: Pick<AuthContext, 'accountId' | 'sessionId'>): Promise<void> {
  await db
    .updateTable('sessions')
    .set({ revoked_at: Date.now() })
    .where('account_id', '=', ctx.accountId)
    .where('id', '=', ctx.sessionId)
    .execute();
  sessionsEnded(db, [ctx.sessionId]);
}

/**
 * Ends every session of a user but one (sign-out everywhere else, password change). Inside a transaction
 * it leaves `sessionsEnded` to the caller, after the commit, and answers the ended ids.
 */
export async function revokeOtherSessions(db: DB | Transaction<Database>, ctx: AuthContext): Promise<number[]> {
  const ended = await db
    .updateTable('sessions')
    .set({ revoked_at: Date.now() })
    .where('account_id', '=', ctx.accountId)
    .where('user_id', '=', ctx.userId)
    .where('id', '<>', ctx.sessionId)
    .where('revoked_at', 'is', null)
    .returning('id')
    .execute();
  const ids = ended.map((r) => Number(r.id));
  if (db.isTransaction) forgetResolvedSessions();
  else sessionsEnded(db, ids);
  return ids;
}

export type RefreshResult =
  | { ok: true; token: string; refreshToken: string; auth: AuthContext }
  /** The previous refresh token within the grace period: the session stands, the new pair is already out. */
  | { ok: true; token: null; refreshToken: null; auth: AuthContext }
  | { ok: false; reason: 'unknown' | 'reused' };

/**
 * Exchanges a refresh token for a new token pair; the old pair stops working. A refresh token that was
 * already rotated away and comes back later than a short grace period means it was copied: the whole
 * session is revoked.
 */
export async function refreshSession(db: DB, refreshToken: string | undefined): Promise<RefreshResult> {
  if (!refreshToken || refreshToken.length > 200) return { ok: false, reason: 'unknown' };
  const at = Date.now();
  const h = hashToken(refreshToken);
  const row = await db
    .selectFrom('sessions')
    .select([
      'id',
      'account_id',
      'user_id',
      'refresh_hash',
      'previous_refresh_hash',
      'rotated_at',
      'revoked_at',
      'expires_at',
    ])
    .where((eb) => eb.or([eb('refresh_hash', '=', h), eb('previous_refresh_hash', '=', h)]))
    .executeTakeFirst();
  if (!row || row.revoked_at !== null || Number(row.expires_at) <= at) return { ok: false, reason: 'unknown' };
  if (row.refresh_hash !== h) {
    if (at - Number(row.rotated_at) > ROTATION_GRACE_MS) {
      await db.updateTable('sessions').set({ revoked_at: at }).where('id', '=', row.id).execute();
      sessionsEnded(db, [Number(row.id)]);
      return { ok: false, reason: 'reused' };
    }
    // A second tab raced the first one's rotation. Rotating again would kill the pair the first tab just
    // received; instead this answer confirms the session and sets nothing, and the browser keeps the new pair.
    const auth = await sessionContext(db, Number(row.id));
    return auth ? { ok: true, token: null, refreshToken: null, auth } : { ok: false, reason: 'unknown' };
  }
  const token = newToken();
  const next = newToken();
  const r = await db
    .updateTable('sessions')
    .set({
      token_hash: hashToken(token),
      refresh_hash: hashToken(next),
      previous_refresh_hash: row.refresh_hash,
      rotated_at: at,
      token_expires_at: at + TOKEN_TTL_MS,
      expires_at: at + TTL_MS,
      last_seen_at: at,
    })
    .where('id', '=', row.id)
    .where('refresh_hash', '=', row.refresh_hash)
    .executeTakeFirst();
  // Another request rotated it in between: treat like a presented previous token within the grace period.
  if (Number(r.numUpdatedRows) !== 1) return refreshSession(db, refreshToken);
  // The old access token stops working now.
  forgetResolvedSessions();
  const auth = await resolveSession(db, token);
  if (!auth) return { ok: false, reason: 'unknown' };
  return { ok: true, token, refreshToken: next, auth };
}

/** Who a live session belongs to, by session id. */
async function sessionContext(db: DB, sessionId: number): Promise<AuthContext | null> {
  const row = await liveSessions(db, Date.now()).where('s.id', '=', sessionId).executeTakeFirst();
  return row ? authOf(row) : null;
}

export interface SessionRow {
  id: number;
  user_agent: string;
  ip: string;
  created_at: number;
  last_seen_at: number;
}

/** A user's live sessions, most recently used first. */
export async function listSessions(db: DB, ctx: Pick<AuthContext, 'accountId' | 'userId'>): Promise<SessionRow[]> {
  const rows = await db
    .selectFrom('sessions')
    .select(['id', 'user_agent', 'ip', 'created_at', 'last_seen_at'])
    .where('account_id', '=', ctx.accountId)
    .where('user_id', '=', ctx.userId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', Date.now())
    .orderBy('last_seen_at', 'desc')
    .execute();
  return rows.map((r) => ({
    ...r,
    id: Number(r.id),
    created_at: Number(r.created_at),
    last_seen_at: Number(r.last_seen_at),
  }));
}

/**
 * Ends one session of a user; false when there is no such live session of theirs. Inside a transaction it
 * leaves `sessionsEnded` to the caller, after the commit.
 */
export async function revokeUserSession(
  db: DB | Transaction<Database>,
  ctx: Pick<AuthContext, 'accountId' | 'userId'>,
  id: number,
): Promise<boolean> {
  const r = await db
    .updateTable('sessions')
    .set({ revoked_at: Date.now() })
    .where('account_id', '=', ctx.accountId)
    .where('user_id', '=', ctx.userId)
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  const ended = Number(r.numUpdatedRows) === 1;
  if (db.isTransaction) forgetResolvedSessions();
  else sessionsEnded(db, ended ? [id] : []);
  return ended;
}

/**
 * Ends every session of a user (deactivation, password reset); the ids of the sessions it ended. Given a
 * transaction, the caller calls `sessionsEnded` once it committed: a socket disconnected before then could
 * reconnect on the session that is not revoked yet.
 */
export async function revokeAllSessions(
  db: DB | Transaction<Database>,
  accountId: number,
  userId: number,
): Promise<number[]> {
  const ended = await db
    .updateTable('sessions')
    .set({ revoked_at: Date.now() })
    .where('account_id', '=', accountId)
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .returning('id')
    .execute();
  const ids = ended.map((r) => Number(r.id));
  if (db.isTransaction) forgetResolvedSessions();
  else sessionsEnded(db, ids);
  return ids;
}

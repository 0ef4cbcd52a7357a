import { type CustomStatus, type OnlineUser, SHADOW_ADMIN } from '@parley/contracts';
import type { DB } from '../../platform/db/db.js';

/**
 * STATUS-05, STATUS-13, STATUS-23: the account's active users as the online list shows them, or one user
 * (`GET /api/status/me/get`). shadow_admin is left out of the list (STATUS-21).
 */
export async function onlineList(db: DB, accountId: number, onlyUserId?: number): Promise<OnlineUser[]> {
  let q = db
    .selectFrom('users')
    .select([
      'id',
      'username',
      'name',
      'status',
      'second_status',
      'status_reason',
      'status_since',
      'last_seen_at',
      'photo',
    ])
    .where('account_id', '=', accountId)
    .where('active', '=', 1)
    .orderBy('name')
    .orderBy('id');
  q = onlyUserId === undefined ? q.where('username', '!=', SHADOW_ADMIN) : q.where('id', '=', onlyUserId);
  const rows = await q.execute();
  return rows.map((r) => ({
    userId: Number(r.id),
    username: r.username,
    name: r.name,
    photo: r.photo ?? null,
    status: r.status,
    second_status: r.second_status,
    reason: r.second_status ? r.status_reason : '',
    ts: Number(r.status_since),
    // Last seen means something only while no connection is open.
    last_seen: r.status === 'OFFLINE' && r.last_seen_at !== null ? Number(r.last_seen_at) : null,
    client_id: accountId,
  }));
}

/** STATUS-17, STATUS-18: the account's custom statuses, by name. */
export async function listCustomStatuses(db: DB, accountId: number): Promise<CustomStatus[]> {
  const rows = await db
    .selectFrom('custom_statuses')
    .select(['id', 'name', 'needs_reason'])
    .where('account_id', '=', accountId)
    .orderBy('name')
    .orderBy('id')
    .execute();
  return rows.map(toCustomStatus);
}

export const toCustomStatus = (r: { id: number; name: string; needs_reason: number }): CustomStatus => ({
  id: Number(r.id),
  name: r.name,
  needs_reason: Boolean(r.needs_reason),
});

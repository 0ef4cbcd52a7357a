import type { UserItem } from '@parley/contracts';
import type { AuthContext } from '../../platform/auth/sessions.js';
import type { DB } from '../../platform/db/db.js';

const COLUMNS = [
  'id',
  'username',
  'name',
  'email',
  'type',
  'rank',
  'permission',
  'departments',
  'active',
  'totp_enabled',
  'status',
  'created_at',
] as const;

type Row = { [K in (typeof COLUMNS)[number]]: unknown };

const present = (r: Row): UserItem => ({
  id: Number(r.id),
  username: String(r.username),
  name: String(r.name),
  email: String(r.email),
  type: r.type as UserItem['type'],
  rank: Number(r.rank),
  permission: JSON.parse(String(r.permission)),
  departments: JSON.parse(String(r.departments)),
  active: Boolean(r.active),
  tfa_enabled: Boolean(r.totp_enabled),
  status: String(r.status),
  created_at: Number(r.created_at),
});

/** Every user of the account, active first, then by name. */
export async function listUsers(db: DB, accountId: number): Promise<UserItem[]> {
  const rows = await db
    .selectFrom('users')
    .select([...COLUMNS])
    .where('account_id', '=', accountId)
    .orderBy('active', 'desc')
    .orderBy('name')
    .execute();
  return rows.map(present);
}

export async function getUser(db: DB, accountId: number, id: number): Promise<UserItem | null> {
  const r = await db
    .selectFrom('users')
    .select([...COLUMNS])
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  return r ? present(r) : null;
}

/**
 * Whether the signed-in user's permission list holds `permission` (see USER_PERMISSIONS). Admins' lists are
 * read like anyone's: the caller decides whether an admin passes anyway. A list that cannot be read holds
 * nothing.
 */
export async function hasPermission(db: DB, auth: AuthContext, permission: string): Promise<boolean> {
  const row = await db
    .selectFrom('users')
    .select('permission')
    .where('account_id', '=', auth.accountId)
    .where('id', '=', auth.userId)
    .executeTakeFirst();
  try {
    const list = JSON.parse(row?.permission ?? '[]') as unknown;
    return Array.isArray(list) && list.includes(permission);
  } catch {
    return false;
  }
}

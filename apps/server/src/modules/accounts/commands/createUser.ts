import { USER_TYPES, type UserType } from '@parley/contracts';
import { sql } from 'kysely';
import { isUniqueViolation } from '../../../platform/db/db.js';
import { conflict } from '../../../platform/http/errors.js';
import type { Trx } from '../../../platform/outbox/index.js';
import { appendEvent } from '../../../platform/outbox/index.js';
import { hashPassword } from '../passwords.js';

export interface CreateUserInput {
  accountId: number;
  username: string;
  name: string;
  email: string;
  password: string;
  type: UserType;
  rank?: number;
  permission?: string[];
}

/** A supervisor is an agent who reads reports by default. */
export const defaultPermissions = (type: UserType): string[] => (type === 'supervisor' ? ['view_report'] : []);

/** Creates a user in an account. Emits `user.created`. A taken username is a 409. */
export async function createUser(trx: Trx, input: CreateUserInput): Promise<{ userId: number }> {
  if (!USER_TYPES.includes(input.type)) throw new Error(`unknown user type ${input.type}`);
  const username = input.username.trim();
  const taken = await trx
    .selectFrom('users')
    .select('id')
    .where(sql`lower(username)`, '=', username.toLowerCase())
    .executeTakeFirst();
  if (taken) throw conflict('This username is already taken.');
  const at = Date.now();
  const row = await trx
    .insertInto('users')
    .values({
      account_id: input.accountId,
      username,
      name: input.name,
      email: input.email,
      password_hash: await hashPassword(input.password),
      type: input.type,
      rank: input.rank ?? 0,
      permission: JSON.stringify(input.permission ?? defaultPermissions(input.type)),
      active: 1,
      // Presence: nobody is connected yet (STATUS-04).
      status: 'OFFLINE',
      status_reason: '',
      status_since: at,
      created_at: at,
      updated_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow()
    // The check above cannot see a user created at the same moment; the unique index can.
    .catch((err: unknown) => {
      throw isUniqueViolation(err) ? conflict('This username is already taken.') : err;
    });
  const userId = Number(row.id);
  await appendEvent(trx, {
    accountId: input.accountId,
    type: 'user.created',
    payload: { userId, username, type: input.type },
  });
  return { userId };
}

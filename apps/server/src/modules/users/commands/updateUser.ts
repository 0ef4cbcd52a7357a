import type { UpdateUserInput } from '@parley/contracts';
import type { AuthContext } from '../../../platform/auth/sessions.js';
import { forgetResolvedSessions, revokeAllSessions, sessionsEnded } from '../../../platform/auth/sessions.js';
import type { DB } from '../../../platform/db/db.js';
import { lockAccount } from '../../../platform/db/locks.js';
import { AppError, notFound } from '../../../platform/http/errors.js';
import { appendEvent, runCommand } from '../../../platform/outbox/index.js';
import { recordAudit } from '../../audit/index.js';
import { checkDepartments } from '../checkDepartments.js';

/**
 * An admin edits a user. Deactivating ends all of the user's sessions at once. The account always keeps
 * at least one active admin. Emits `user.updated`.
 */
export async function updateUser(db: DB, actor: AuthContext & { ip: string }, id: number, input: UpdateUserInput) {
  let ended: number[] = [];
  await runCommand(db, async (trx) => {
    if (input.active === false || (input.type !== undefined && input.type !== 'admin')) {
      // Two admins demoting each other at once would both count two admins: the account's lock makes such
      // edits of one account take turns.
      await lockAccount(trx, actor.accountId);
    }
    const user = await trx
      .selectFrom('users')
      .select(['id', 'username', 'type', 'active'])
      .where('account_id', '=', actor.accountId)
      .where('id', '=', id)
      .executeTakeFirst();
    if (!user) throw notFound('There is no such user.');
    const losesAdmin =
      user.type === 'admin' && user.active && (input.active === false || (input.type && input.type !== 'admin'));
    if (losesAdmin) {
      const admins = await trx
        .selectFrom('users')
        .select('id')
        .where('account_id', '=', actor.accountId)
        .where('type', '=', 'admin')
        .where('active', '=', 1)
        .execute();
      if (admins.length <= 1) throw new AppError(409, 'LAST_ADMIN', 'The account needs at least one active admin.');
    }
    if (input.departments) await checkDepartments(trx, actor.accountId, input.departments);
    const { permission, departments, active, ...plain } = input;
    await trx
      .updateTable('users')
      .set({
        ...plain,
        ...(permission ? { permission: JSON.stringify(permission) } : {}),
        ...(departments ? { departments: JSON.stringify(departments) } : {}),
        ...(active === undefined ? {} : { active: active ? 1 : 0 }),
        updated_at: Date.now(),
      })
      .where('account_id', '=', actor.accountId)
      .where('id', '=', id)
      .execute();
    if (active === false) ended = await revokeAllSessions(trx, actor.accountId, id);
    // Name, username, type and active are part of every resolved session.
    forgetResolvedSessions();
    await recordAudit(trx, {
      accountId: actor.accountId,
      userId: actor.userId,
      actor: actor.username,
      action: 'user.updated',
      detail: { user: user.username, changes: input },
      ip: actor.ip,
    });
    await appendEvent(trx, {
      accountId: actor.accountId,
      type: 'user.updated',
      payload: { userId: id, changes: Object.keys(input) },
    });
  });
  // Committed: the user's open sockets close on every node.
  sessionsEnded(db, ended);
}

import type { CreateWorkspaceInput } from '@parley/contracts';
import { ACCOUNT_TYPES, PLANS } from '@parley/contracts';
import { createSession } from '../../../platform/auth/sessions.js';
import type { DB } from '../../../platform/db/db.js';
import { conflict } from '../../../platform/http/errors.js';
import { runCommand } from '../../../platform/outbox/index.js';
import { createAccount, createUser } from '../../accounts/index.js';

/**
 * First run: while the database holds no account, the first visitor creates the workspace and its
 * admin and is signed in. Afterwards this is refused, so nobody can take over an installed server.
 */
export async function createWorkspace(
  db: DB,
  input: CreateWorkspaceInput,
  client: { userAgent?: string; ip?: string },
) {
  return runCommand(db, async (trx) => {
    const any = await trx.selectFrom('accounts').select('id').limit(1).executeTakeFirst();
    if (any) throw conflict('This Parley server already has a workspace. Sign in instead.');
    const { accountId } = await createAccount(trx, {
      name: input.company,
      accountType: ACCOUNT_TYPES.regular,
      plan: PLANS.starter,
    });
    const { userId } = await createUser(trx, {
      accountId,
      username: input.username,
      name: input.name,
      email: input.email,
      password: input.password,
      type: 'admin',
    });
    const session = await createSession(trx, { accountId, userId, ...client });
    return { accountId, userId, ...session };
  });
}

export async function setupNeeded(db: DB): Promise<boolean> {
  return !(await db.selectFrom('accounts').select('id').limit(1).executeTakeFirst());
}

import type { AccountSecurityInput } from '@parley/contracts';
import type { z } from 'zod';
import { type AuthContext, sessionsEnded } from '../../../platform/auth/sessions.js';
import type { DB } from '../../../platform/db/db.js';
import { runCommand } from '../../../platform/outbox/index.js';
import { recordAudit } from '../../audit/index.js';

/**
 * An admin requires (or stops requiring) two-factor sign-in for the account: the setting and its audit
 * entry commit together. Requiring it holds back the live sessions of users without it: after the commit
 * their open sockets close (a new one is refused until they have set it up), as an ended session's do.
 */
export async function setAccountSecurity(
  db: DB,
  actor: AuthContext & { ip: string },
  input: z.infer<typeof AccountSecurityInput>,
): Promise<void> {
  const held = await runCommand(db, async (trx) => {
    await trx
      .updateTable('accounts')
      .set({ require_2fa: input.require_2fa ? 1 : 0, updated_at: Date.now() })
      .where('id', '=', actor.accountId)
      .execute();
    await recordAudit(trx, {
      accountId: actor.accountId,
      userId: actor.userId,
      actor: actor.username,
      action: 'account.security_changed',
      detail: { require_2fa: input.require_2fa },
      ip: actor.ip,
    });
    if (!input.require_2fa) return [];
    const rows = await trx
      .selectFrom('sessions as s')
      .innerJoin('users as u', (j) => j.onRef('u.id', '=', 's.user_id').onRef('u.account_id', '=', 's.account_id'))
      .select('s.id')
      .where('s.account_id', '=', actor.accountId)
      .where('s.revoked_at', 'is', null)
      .where('u.totp_enabled', '=', 0)
      .execute();
    return rows.map((r) => Number(r.id));
  });
  // Every resolved session forgets the old setting; the held ones' sockets close on every node.
  sessionsEnded(db, held);
}

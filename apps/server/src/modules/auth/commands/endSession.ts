import { type AuthContext, revokeUserSession, sessionsEnded } from '../../../platform/auth/sessions.js';
import type { DB } from '../../../platform/db/db.js';
import { notFound } from '../../../platform/http/errors.js';
import { runCommand } from '../../../platform/outbox/index.js';
import { recordAudit } from '../../audit/index.js';

/**
 * A user ends one of their own sessions (Settings -> Sessions): the revocation and its audit entry commit
 * together, and the session's sockets close after the commit. Another user's, an ended or an unknown
 * session is a 404 and nothing is written.
 */
export async function endSession(db: DB, auth: AuthContext, id: number, ip: string): Promise<void> {
  await runCommand(db, async (trx) => {
    if (!(await revokeUserSession(trx, auth, id))) throw notFound('There is no such session.');
    await recordAudit(trx, {
      accountId: auth.accountId,
      userId: auth.userId,
      actor: auth.username,
      action: 'session.revoked',
      detail: { session: id },
      ip,
    });
  });
  sessionsEnded(db, [id]);
}

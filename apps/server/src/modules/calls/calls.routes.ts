import { CALL_STRINGS, CallConfigAnswer, CallConfigInput } from '@parley/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AuthContext } from '../../platform/auth/sessions.js';
import type { DB } from '../../platform/db/db.js';
import { forbidden } from '../../platform/http/errors.js';
import { runCommand } from '../../platform/outbox/index.js';
import { recordAudit } from '../audit/index.js';
import { hasPermission } from '../users/index.js';

/** CALL-43: Call Configurations is for admins and users with the `call_settings` permission. */
async function assertCallSettings(db: DB, auth: AuthContext): Promise<void> {
  if (auth.type === 'admin') return;
  if (!(await hasPermission(db, auth, 'call_settings'))) throw forbidden(CALL_STRINGS.notAllowed);
}

/**
 * CALL-13, CALL-14, CALL-43, CALL-44: the account's call server. `GET` answers its own address (null when it
 * uses the installation's) and the installation's; `POST` sets or clears it, audited. Softphones pick it up
 * at their next auth check.
 */
export function callRoutes(app: FastifyInstance, deps: { db: DB; defaultSipWsUrl: string }): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db } = deps;
  const read = async (accountId: number) => {
    const a = await db
      .selectFrom('accounts')
      .select('sip_ws_url')
      .where('id', '=', accountId)
      .executeTakeFirstOrThrow();
    return { result: 'success' as const, data: { sip_ws_url: a.sip_ws_url, default_url: deps.defaultSipWsUrl } };
  };
  r.get(
    '/api/call/config',
    { config: { auth: 'user' }, schema: { response: { 200: CallConfigAnswer } } },
    async (req) => read(req.auth!.accountId),
  );
  r.post(
    '/api/call/config',
    { config: { auth: 'user' }, schema: { body: CallConfigInput, response: { 200: CallConfigAnswer } } },
    async (req) => {
      const auth = req.auth!;
      await assertCallSettings(db, auth);
      await runCommand(db, async (trx) => {
        await trx
          .updateTable('accounts')
          .set({ sip_ws_url: req.body.sip_ws_url, updated_at: Date.now() })
          .where('id', '=', auth.accountId)
          .execute();
        await recordAudit(trx, {
          accountId: auth.accountId,
          userId: auth.userId,
          actor: auth.username,
          action: 'account.call_server_set',
          detail: { sip_ws_url: req.body.sip_ws_url },
        });
      });
      return read(auth.accountId);
    },
  );
}

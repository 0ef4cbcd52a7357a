import { EMAIL_STRINGS, type GraphMailboxInput, type Mailbox } from '@parley/contracts';
import type { AuthContext } from '../../../platform/auth/sessions.js';
import type { DB } from '../../../platform/db/db.js';
import { badRequest, conflict, notFound } from '../../../platform/http/errors.js';
import { runCommand } from '../../../platform/outbox/index.js';
import { recordAudit } from '../../audit/index.js';
import { findMailbox, toMailbox } from '../mailboxes.queries.js';
import type { Secrets } from '../secrets.js';
import { checkDepartment, insertMailbox, refuseTakenAddress, requireSecrets, withAddressGuard } from './saveMailbox.js';

/** The row's columns of a Microsoft 365 mailbox: no IMAP or SMTP server; the secret sealed, or `keep`'s. */
function columnsOf(secrets: Secrets, accountId: number, input: GraphMailboxInput, keep = '') {
  return {
    kind: 'graph',
    address: input.address,
    address_lower: input.address.toLowerCase(),
    name: input.name,
    department_id: input.departmentId,
    active: input.active ? 1 : 0,
    imap_host: '',
    imap_port: 0,
    imap_tls: 1,
    imap_user: '',
    imap_secret: '',
    smtp_host: '',
    smtp_port: 0,
    smtp_tls: 1,
    smtp_user: '',
    smtp_secret: '',
    graph_tenant_id: input.graph.tenantId,
    graph_client_id: input.graph.clientId,
    graph_secret: input.graph.clientSecret ? secrets.seal(accountId, input.graph.clientSecret) : keep,
  };
}

/** A new Microsoft 365 mailbox of the account (admins), within the plan's limit; the client secret is required. */
export async function createGraphMailbox(
  db: DB,
  secrets: Secrets | null,
  auth: AuthContext,
  input: GraphMailboxInput,
): Promise<Mailbox> {
  const box = requireSecrets(secrets);
  if (!input.graph.clientSecret) throw badRequest(EMAIL_STRINGS.graphSecretRequired);
  return withAddressGuard(input.address, () =>
    runCommand(db, async (trx) => {
      const row = await insertMailbox(trx, auth, input, columnsOf(box, auth.accountId, input));
      return toMailbox(row);
    }),
  );
}

/**
 * Changes a Microsoft 365 mailbox: every field as given, the secret only when one is given. Another user
 * (address) or app is another mailbox to Graph: its subscription and delta start again.
 */
export async function updateGraphMailbox(
  db: DB,
  secrets: Secrets | null,
  auth: AuthContext,
  id: number,
  input: GraphMailboxInput,
): Promise<Mailbox> {
  const box = requireSecrets(secrets);
  return withAddressGuard(input.address, () =>
    runCommand(db, async (trx) => {
      const current = await findMailbox(trx, auth.accountId, id);
      if (!current) throw notFound(EMAIL_STRINGS.notFound);
      if (current.kind !== 'graph') throw conflict(EMAIL_STRINGS.kindFixed);
      await checkDepartment(trx, auth.accountId, input.departmentId);
      await refuseTakenAddress(trx, auth.accountId, input.address, id);
      const moved =
        current.address_lower !== input.address.toLowerCase() ||
        current.graph_tenant_id !== input.graph.tenantId ||
        current.graph_client_id !== input.graph.clientId;
      const row = await trx
        .updateTable('mailboxes')
        .set({
          ...columnsOf(box, auth.accountId, input, current.graph_secret),
          // The old subscription is left to expire by itself (its notifications no longer match a row).
          ...(moved
            ? {
                graph_subscription_id: null,
                graph_subscription_until: null,
                graph_client_state: '',
                graph_delta_link: null,
              }
            : {}),
          last_error: null,
          last_error_at: null,
          updated_at: Math.max(Date.now(), Number(current.updated_at) + 1),
        })
        .where('account_id', '=', auth.accountId)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
      await recordAudit(trx, {
        accountId: auth.accountId,
        userId: auth.userId,
        actor: auth.username,
        action: 'mailbox.updated',
        detail: { id, address: row.address, kind: 'graph', clientSecretChanged: !!input.graph.clientSecret },
      });
      return toMailbox(row);
    }),
  );
}

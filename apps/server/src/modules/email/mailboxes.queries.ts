import { randomBytes, timingSafeEqual } from 'node:crypto';
import { type Mailbox, mailboxLimit, PLANS } from '@parley/contracts';
import type { Selectable } from 'kysely';
import type { DB } from '../../platform/db/db.js';
import type { MailboxesTable } from '../../platform/db/schema.js';
import type { Trx } from '../../platform/outbox/index.js';

export type MailboxRow = Selectable<MailboxesTable>;

/** A forwarding token: 20 lowercase hex characters (80 random bits), so MTAs that fold case do no harm. */
export const newInboundToken = () => randomBytes(10).toString('hex');

/** The local part of forwarding addresses: `mbx-<mailbox id>-<token>`. */
const FORWARD_LOCAL = /^mbx-(\d{1,15})-([0-9a-f]{20})$/;

/** A mailbox's forwarding address on `domain` (the inbound listener's), or null while it is off. */
export const forwardingAddress = (r: Pick<MailboxRow, 'id' | 'inbound_token'>, domain: string | null) =>
  domain && r.inbound_token ? `mbx-${Number(r.id)}-${r.inbound_token}@${domain}` : null;

/** The mailbox id and token a forwarding address on `domain` names, or null when it is not one. */
export function parseForwardingAddress(address: string, domain: string): { id: number; token: string } | null {
  const at = address.lastIndexOf('@');
  if (at < 1 || address.slice(at + 1).toLowerCase() !== domain.toLowerCase()) return null;
  const m = FORWARD_LOCAL.exec(address.slice(0, at).toLowerCase());
  return m ? { id: Number(m[1]), token: m[2]! } : null;
}

/**
 * The active mailbox a forwarding address names, of whichever account: the token is what authorizes it (an id
 * alone finds nothing), compared in constant time.
 */
export async function findForwardedMailbox(db: DB | Trx, id: number, token: string): Promise<MailboxRow | undefined> {
  const row = await db
    .selectFrom('mailboxes')
    .selectAll()
    .where('id', '=', id)
    .where('active', '=', 1)
    .executeTakeFirst();
  if (!row || row.inbound_token.length !== token.length) return undefined;
  return timingSafeEqual(Buffer.from(row.inbound_token), Buffer.from(token)) ? row : undefined;
}

/** A mailbox as the API shows it: passwords and the DKIM key only as `hasPassword` / `hasDkimKey`. */
export const toMailbox = (r: MailboxRow, forwardDomain: string | null = null): Mailbox => ({
  id: Number(r.id),
  address: r.address,
  name: r.name,
  departmentId: r.department_id === null ? null : Number(r.department_id),
  active: Number(r.active) === 1,
  kind: r.kind === 'graph' || r.kind === 'forwarding' ? r.kind : 'imap',
  imap: {
    host: r.imap_host,
    port: Number(r.imap_port),
    tls: Number(r.imap_tls) === 1,
    user: r.imap_user,
    hasPassword: r.imap_secret !== '',
  },
  smtp: {
    host: r.smtp_host,
    port: Number(r.smtp_port),
    tls: Number(r.smtp_tls) === 1,
    user: r.smtp_user,
    hasPassword: r.smtp_secret !== '',
  },
  graph:
    r.kind === 'graph'
      ? {
          tenantId: r.graph_tenant_id,
          clientId: r.graph_client_id,
          hasClientSecret: r.graph_secret !== '',
          subscriptionExpiresAt: r.graph_subscription_until === null ? null : Number(r.graph_subscription_until),
        }
      : null,
  dkimSelector: r.dkim_selector,
  hasDkimKey: r.dkim_secret !== '',
  forwardingAddress: forwardingAddress(r, forwardDomain),
  lastError: r.last_error,
  lastErrorAt: r.last_error_at === null ? null : Number(r.last_error_at),
  lastFetchAt: r.last_fetch_at === null ? null : Number(r.last_fetch_at),
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});

/** The account's mailboxes, by address. */
export async function listMailboxes(
  db: DB | Trx,
  accountId: number,
  forwardDomain: string | null = null,
): Promise<Mailbox[]> {
  const rows = await db
    .selectFrom('mailboxes')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('address_lower')
    .orderBy('id')
    .execute();
  return rows.map((r) => toMailbox(r, forwardDomain));
}

/** One mailbox row of the account, or undefined. */
export async function findMailbox(db: DB | Trx, accountId: number, id: number): Promise<MailboxRow | undefined> {
  return db
    .selectFrom('mailboxes')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The account's plan's mailbox limit (null: unlimited). */
export async function accountMailboxLimit(db: DB | Trx, accountId: number): Promise<number | null> {
  const account = await db.selectFrom('accounts').select('plan').where('id', '=', accountId).executeTakeFirst();
  return mailboxLimit(Number(account?.plan ?? PLANS.trial));
}

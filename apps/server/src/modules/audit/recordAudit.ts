import type { DB } from '../../platform/db/db.js';
import type { Trx } from '../../platform/outbox/index.js';

export interface AuditEntry {
  accountId: number;
  userId?: number | null;
  actor: string;
  action: AuditAction;
  detail?: Record<string, unknown>;
  ip?: string;
}

/** Everything security-relevant that an admin may want to read back later. */
export type AuditAction =
  | 'signin.succeeded'
  | 'signin.failed'
  | 'signin.throttled'
  | 'session.revoked'
  | 'session.refresh_reused'
  | 'password.changed'
  | 'password.reset_requested'
  | 'password.reset'
  | 'tfa.enabled'
  | 'tfa.disabled'
  | 'tfa.backup_code_used'
  | 'account.security_changed'
  | 'account.call_server_set'
  | 'account.call_did_set'
  | 'account.created'
  | 'user.created'
  | 'user.updated'
  | 'status.custom_created'
  | 'status.custom_deleted'
  | 'announcement.published'
  | 'announcement.removed'
  | 'labels.updated'
  | 'ticket.priority_set'
  | 'ticket.status_set'
  | 'ticket.assigned'
  | 'ticket.labels_set'
  | 'ticket.department_set'
  | 'ticket.campaign_set'
  | 'ticket.merged'
  | 'campaign.created'
  | 'campaign.renamed'
  | 'campaign.deleted'
  | 'product.created'
  | 'product.updated'
  | 'product.archived'
  | 'product.restored'
  | 'encryption.key_published'
  | 'settings.updated'
  | 'sla.settings_updated'
  | 'department.created'
  | 'department.renamed'
  | 'department.deleted'
  | 'mailbox.created'
  | 'mailbox.updated'
  | 'mailbox.deleted'
  | 'mailbox.forwarding_renewed'
  | 'channel.connected'
  | 'channel.updated'
  | 'channel.removed'
  | 'dashboard.shared'
  | 'dashboard.removed'
  | 'contact.merged'
  | 'contact.merge_undone'
  | 'contact.imported'
  | 'contact.exported'
  | 'contact.erased'
  | 'retention.rule_created'
  | 'retention.rule_updated'
  | 'retention.rule_deleted'
  | 'retention.run'
  | 'payment.created'
  | 'payment.succeeded'
  | 'payment.failed'
  | 'ai.settings_changed'
  | 'payment.subscription_cancelled'
  | 'payment.cancel_failed'
  | 'payment.seats_changed'
  | 'payment.cancel_scheduled'
  | 'payment.cancel_withdrawn'
  | 'payment.subscription_ended'
  | 'payment.refunded'
  | 'livechat.transcript_sent'
  | 'sso.updated'
  | 'sso.removed'
  | 'sso.signin'
  | 'sso.refused'
  | 'sso.logout'
  | 'sso.user_created';

/** Writes one audit entry, in the caller's transaction when given one. Never holds a secret. */
export async function recordAudit(db: DB | Trx, e: AuditEntry): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({
      account_id: e.accountId,
      user_id: e.userId ?? null,
      actor: e.actor,
      action: e.action,
      detail: JSON.stringify(e.detail ?? {}),
      ip: e.ip ?? '',
      created_at: Date.now(),
    })
    .execute();
}

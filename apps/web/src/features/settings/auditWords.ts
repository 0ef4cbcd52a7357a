import type { AuditItem } from '@parley/contracts';

/** What each audit action means, as the rest of a sentence after who did it. */
const ACTIONS: Record<string, string> = {
  'account.call_server_set': 'set the call server',
  'account.created': 'created the account',
  'account.security_changed': 'changed the account security',
  'announcement.published': 'published an announcement',
  'announcement.removed': 'removed an announcement',
  'campaign.created': 'created a campaign',
  'campaign.deleted': 'deleted a campaign',
  'campaign.renamed': 'renamed a campaign',
  'encryption.key_published': 'published or rotated an encryption key',
  'department.created': 'created a department',
  'department.deleted': 'deleted a department',
  'department.renamed': 'renamed a department',
  'labels.updated': 'updated the labels',
  'payment.created': 'started a payment',
  'payment.failed': 'had a payment fail',
  'payment.succeeded': 'paid for a plan',
  'payment.subscription_cancelled': 'had an older subscription cancelled (a new one was paid)',
  'payment.cancel_failed': 'could not have an older subscription cancelled',
  'payment.seats_changed': 'changed the number of users paid for',
  'payment.cancel_scheduled': 'cancelled the subscription at the end of its period',
  'payment.cancel_withdrawn': 'kept the subscription (the cancellation was withdrawn)',
  'payment.subscription_ended': 'had the subscription end',
  'payment.refunded': 'was refunded a payment',
  'livechat.transcript_sent': 'sent a live chat transcript',
  'mailbox.created': 'connected a mailbox',
  'mailbox.deleted': 'removed a mailbox',
  'mailbox.forwarding_renewed': 'made a new forwarding address for a mailbox',
  'mailbox.updated': 'changed a mailbox',
  'channel.connected': 'connected a messaging channel',
  'channel.removed': 'removed a messaging channel',
  'channel.updated': 'changed a messaging channel',
  'ai.settings_changed': 'changed the AI settings',
  'dashboard.removed': 'removed a public dashboard link',
  'dashboard.shared': 'shared a public dashboard link',
  'contact.merged': 'merged two contacts',
  'contact.merge_undone': 'undid a merge of contacts',
  'contact.imported': 'imported contacts',
  'contact.exported': "exported a contact's data",
  'contact.erased': 'erased a contact and its conversations',
  'retention.rule_created': 'added a data retention rule',
  'retention.rule_updated': 'changed a data retention rule',
  'retention.rule_deleted': 'removed a data retention rule',
  'retention.run': 'ran the data retention rules',
  'password.changed': 'changed their password',
  'password.reset': 'reset a password',
  'password.reset_requested': 'asked for a password reset',
  'session.refresh_reused': 'reused a refresh token (the session was ended)',
  'session.revoked': 'ended a session',
  'settings.updated': 'changed the settings',
  'signin.failed': 'failed to sign in',
  'signin.succeeded': 'signed in',
  'signin.throttled': 'was stopped from signing in (too many attempts)',
  'status.custom_created': 'created a custom status',
  'status.custom_deleted': 'deleted a custom status',
  'tfa.backup_code_used': 'used a two-factor backup code',
  'tfa.disabled': 'turned two-factor sign-in off',
  'tfa.enabled': 'turned two-factor sign-in on',
  'ticket.assigned': 'assigned a ticket',
  'ticket.campaign_set': "set a ticket's campaign",
  'ticket.department_set': "set a ticket's department",
  'ticket.labels_set': "set a ticket's labels",
  'ticket.priority_set': "set a ticket's priority",
  'ticket.status_set': "set a ticket's status",
  'user.created': 'added a user',
  'user.updated': 'changed a user',
};

const words = (key: string) => key.replace(/_/g, ' ');

/** A detail value in words: lists joined, objects as "key value", empty as "none". */
function valueText(v: unknown): string {
  if (v === null || v === undefined || v === '') return 'none';
  if (Array.isArray(v)) return v.length ? v.map(valueText).join(', ') : 'none';
  if (typeof v === 'object')
    return Object.entries(v as Record<string, unknown>)
      .map(([k, x]) => `${words(k)} ${valueText(x)}`)
      .join(', ');
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  return String(v);
}

/** The audit entry as a sentence ("Dana signed in") and its details in words ("reason: password"). */
export function auditSentence(item: Pick<AuditItem, 'action' | 'detail'>, actorName: string): string {
  const what = ACTIONS[item.action] ?? words(item.action.replace('.', ' '));
  return `${actorName || 'Someone'} ${what}`;
}
export function auditDetails(detail: Record<string, unknown>): string {
  return Object.entries(detail)
    .map(([k, v]) => `${words(k)}: ${valueText(v)}`)
    .join('; ');
}

import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { m0001_init } from './0001_init.js';
import { m0002_accounts_security } from './0002_accounts_security.js';
import { m0003_username_lower_unique } from './0003_username_lower_unique.js';
import { m0004_presence_announcements } from './0004_presence_announcements.js';
import { m0005_labels } from './0005_labels.js';
import { m0006_tickets } from './0006_tickets.js';
import { m0007_ticket_indexes } from './0007_ticket_indexes.js';
import { m0008_assignment } from './0008_assignment.js';
import { m0009_ticket_statuses } from './0009_ticket_statuses.js';
import { m0010_messages } from './0010_messages.js';
import { m0011_notifications } from './0011_notifications.js';
import { m0012_livechat } from './0012_livechat.js';
import { m0013_workspace_chat } from './0013_workspace_chat.js';
import { m0015_push_channels } from './0015_push_channels.js';
import { m0016_ticket_counts } from './0016_ticket_counts.js';
import { m0017_user_photo_sip } from './0017_user_photo_sip.js';
import { m0018_call_server } from './0018_call_server.js';
import { m0019_ticket_fields } from './0019_ticket_fields.js';
import { m0020_events_pending_order } from './0020_events_pending_order.js';
import { m0021_rate_limit_hits } from './0021_rate_limit_hits.js';
import { m0022_totp_last_step } from './0022_totp_last_step.js';
import { m0023_replies } from './0023_replies.js';
import { m0024_business_hours_sla_policies } from './0024_business_hours_sla_policies.js';
import { m0026_ticket_notes_visitor } from './0026_ticket_notes_visitor.js';
import { m0027_sla_targets_resolution } from './0027_sla_targets_resolution.js';
import { m0028_mailboxes } from './0028_mailboxes.js';
import { m0029_email_out } from './0029_email_out.js';
import { m0030_email_inbound } from './0030_email_inbound.js';
import { m0031_graph_mailboxes } from './0031_graph_mailboxes.js';
import { m0032_search } from './0032_search.js';
import { m0033_billing } from './0033_billing.js';
import { m0034_contacts } from './0034_contacts.js';
import { m0035_kb } from './0035_kb.js';
import { m0036_contacts_indexes } from './0036_contacts_indexes.js';
import { m0037_forms } from './0037_forms.js';
import { m0038_surveys } from './0038_surveys.js';
import { m0039_calendar } from './0039_calendar.js';
import { m0040_cases } from './0040_cases.js';
import { m0041_channels } from './0041_channels.js';
import { m0042_scheduled_messages } from './0042_scheduled_messages.js';
import { m0043_channel_reply_tokens } from './0043_channel_reply_tokens.js';
import { m0044_report_facts } from './0044_report_facts.js';
import { m0045_scheduled_email } from './0045_scheduled_email.js';
import { m0046_report_rollups } from './0046_report_rollups.js';
import { m0047_automation } from './0047_automation.js';
import { m0048_calls } from './0048_calls.js';
import { m0049_integrations } from './0049_integrations.js';
import { m0050_ai_models } from './0050_ai_models.js';
import { m0051_ai_settings } from './0051_ai_settings.js';
import { m0052_message_ai } from './0052_message_ai.js';
import { m0054_retention } from './0054_retention.js';
import { m0055_sso } from './0055_sso.js';
import { m0056_search_prefix } from './0056_search_prefix.js';
import { m0057_calls_started } from './0057_calls_started.js';
import { m0058_contact_days } from './0058_contact_days.js';
import { m0059_contact_open } from './0059_contact_open.js';
import { m0060_automation_livechat } from './0060_automation_livechat.js';
import { m0061_saml_logout } from './0061_saml_logout.js';
import { m0064_chat_transcripts } from './0064_chat_transcripts.js';
import { m0065_subscription_changes } from './0065_subscription_changes.js';
import { m0066_call_scams } from './0066_call_scams.js';
import { m0067_time_entries } from './0067_time_entries.js';
import { m0068_interactions } from './0068_interactions.js';
import { m0069_products } from './0069_products.js';
import { m0070_trading } from './0070_trading.js';
import { m0071_encryption_keys } from './0071_encryption_keys.js';
import type { ParleyMigration } from './helpers.js';

/** Every migration in order. Add new ones at the end; never edit one that has shipped. */
const all: Record<string, ParleyMigration> = {
  '0001_init': m0001_init,
  '0002_accounts_security': m0002_accounts_security,
  '0003_username_lower_unique': m0003_username_lower_unique,
  '0004_presence_announcements': m0004_presence_announcements,
  '0005_labels': m0005_labels,
  '0006_tickets': m0006_tickets,
  '0007_ticket_indexes': m0007_ticket_indexes,
  '0008_assignment': m0008_assignment,
  '0009_ticket_statuses': m0009_ticket_statuses,
  '0010_messages': m0010_messages,
  '0011_notifications': m0011_notifications,
  '0012_livechat': m0012_livechat,
  '0013_workspace_chat': m0013_workspace_chat,
  '0015_push_channels': m0015_push_channels,
  '0016_ticket_counts': m0016_ticket_counts,
  '0017_user_photo_sip': m0017_user_photo_sip,
  '0018_call_server': m0018_call_server,
  '0019_ticket_fields': m0019_ticket_fields,
  '0020_events_pending_order': m0020_events_pending_order,
  '0021_rate_limit_hits': m0021_rate_limit_hits,
  '0022_totp_last_step': m0022_totp_last_step,
  '0023_replies': m0023_replies,
  '0024_business_hours_sla_policies': m0024_business_hours_sla_policies,
  '0026_ticket_notes_visitor': m0026_ticket_notes_visitor,
  '0027_sla_targets_resolution': m0027_sla_targets_resolution,
  '0028_mailboxes': m0028_mailboxes,
  '0029_email_out': m0029_email_out,
  '0030_email_inbound': m0030_email_inbound,
  '0031_graph_mailboxes': m0031_graph_mailboxes,
  '0032_search': m0032_search,
  '0033_billing': m0033_billing,
  '0034_contacts': m0034_contacts,
  '0035_kb': m0035_kb,
  '0036_contacts_indexes': m0036_contacts_indexes,
  '0037_forms': m0037_forms,
  '0038_surveys': m0038_surveys,
  '0039_calendar': m0039_calendar,
  '0040_cases': m0040_cases,
  '0041_channels': m0041_channels,
  '0042_scheduled_messages': m0042_scheduled_messages,
  '0043_channel_reply_tokens': m0043_channel_reply_tokens,
  '0044_report_facts': m0044_report_facts,
  '0045_scheduled_email': m0045_scheduled_email,
  '0046_report_rollups': m0046_report_rollups,
  '0047_automation': m0047_automation,
  '0048_calls': m0048_calls,
  '0049_integrations': m0049_integrations,
  '0050_ai_models': m0050_ai_models,
  '0051_ai_settings': m0051_ai_settings,
  '0052_message_ai': m0052_message_ai,
  '0054_retention': m0054_retention,
  '0055_sso': m0055_sso,
  '0056_search_prefix': m0056_search_prefix,
  '0057_calls_started': m0057_calls_started,
  '0058_contact_days': m0058_contact_days,
  '0059_contact_open': m0059_contact_open,
  '0060_automation_livechat': m0060_automation_livechat,
  '0061_saml_logout': m0061_saml_logout,
  '0064_chat_transcripts': m0064_chat_transcripts,
  '0065_subscription_changes': m0065_subscription_changes,
  '0066_call_scams': m0066_call_scams,
  '0067_time_entries': m0067_time_entries,
  '0068_interactions': m0068_interactions,
  '0069_products': m0069_products,
  '0070_trading': m0070_trading,
  '0071_encryption_keys': m0071_encryption_keys,
};

/** The names of the migrations this version knows, in order (a database's `kysely_migration` rows). */
export const migrationNames: readonly string[] = Object.keys(all);

class StaticProvider implements MigrationProvider {
  constructor(private readonly dialect: Dialect) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    const out: Record<string, Migration> = {};
    for (const [name, m] of Object.entries(all)) {
      out[name] = {
        up: (db) => m.up(db, this.dialect),
        down: m.down ? (db) => m.down!(db, this.dialect) : undefined,
      };
    }
    return out;
  }
}

/** Applies every pending migration; safe to run on every start and from several nodes at once. */
export async function migrateToLatest(db: Kysely<any>, dialect: Dialect): Promise<string[]> {
  // Unordered: migrations written side by side (0009, 0010, ...) may reach a database in either order.
  const migrator = new Migrator({ db, provider: new StaticProvider(dialect), allowUnorderedMigrations: true });
  const run = async () => {
    const { error, results } = await migrator.migrateToLatest();
    if (error) throw error instanceof Error ? error : new Error(String(error));
    return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
  };
  if (dialect === 'postgres') return run(); // Kysely takes an advisory lock and a transaction there.
  // Kysely's SQLite adapter takes no lock and no transaction. One write transaction around the whole run
  // makes a second process wait (busy_timeout) and then see the work done, and a crash half-way leaves
  // nothing half-applied. better-sqlite3 is one connection, so every statement runs inside it.
  await sql`begin immediate`.execute(db);
  try {
    const applied = await run();
    await sql`commit`.execute(db);
    return applied;
  } catch (err) {
    await sql`rollback`.execute(db).catch(() => {});
    throw err;
  }
}

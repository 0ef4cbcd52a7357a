import type { Generated } from 'kysely';

/**
 * Every table that holds account data has `account_id`. Timestamps are integer milliseconds since the
 * Unix epoch in both dialects (`bigint` on Postgres, read back as numbers). JSON is stored as text.
 */
export interface Database {
  accounts: AccountsTable;
  users: UsersTable;
  sessions: SessionsTable;
  account_seq: AccountSeqTable;
  events: EventsTable;
  event_receipts: EventReceiptsTable;
  task_leases: TaskLeasesTable;
  status_periods: StatusPeriodsTable;
  user_connections: UserConnectionsTable;
  nodes: NodesTable;
  custom_statuses: CustomStatusesTable;
  announcements: AnnouncementsTable;
  departments: DepartmentsTable;
  labels: LabelsTable;
  tickets: TicketsTable;
  calls: CallsTable;
  call_transcripts: CallTranscriptsTable;
  call_dids: CallDidsTable;
  call_scams: CallScamsTable;
  trading_instruments: TradingInstrumentsTable;
  trading_mentions: TradingMentionsTable;
  encryption_keys: EncryptionKeysTable;
  ticket_reads: TicketReadsTable;
  ticket_counts: TicketCountsTable;
  ticket_labels: TicketLabelsTable;
  ticket_assignments: TicketAssignmentsTable;
  ticket_statuses: TicketStatusesTable;
  department_assignment: DepartmentAssignmentTable;
  campaigns: CampaignsTable;
  products: ProductsTable;
  product_tickets: ProductTicketsTable;
  product_articles: ProductArticlesTable;
  messages: MessagesTable;
  message_notes: MessageNotesTable;
  ticket_notes: TicketNotesTable;
  message_reactions: MessageReactionsTable;
  uploads: UploadsTable;
  audit_log: AuditLogTable;
  login_attempts: LoginAttemptsTable;
  rate_limit_hits: RateLimitHitsTable;
  one_time_tokens: OneTimeTokensTable;
  notifications: NotificationsTable;
  push_subscriptions: PushSubscriptionsTable;
  notification_focus: NotificationFocusTable;
  sla_timers: SlaTimersTable;
  sla_breaches: SlaBreachesTable;
  sla_resolution_timers: SlaResolutionTimersTable;
  sla_usage: SlaUsageTable;
  business_hours: BusinessHoursTable;
  holidays: HolidaysTable;
  sla_policies: SlaPoliciesTable;
  server_state: ServerStateTable;
  livechat_settings: LiveChatSettingsTable;
  livechat_visitors: LiveChatVisitorsTable;
  contacts: ContactsTable;
  contact_identifiers: ContactIdentifiersTable;
  contact_merges: ContactMergesTable;
  forms: FormsTable;
  form_entries: FormEntriesTable;
  ticket_surveys: TicketSurveysTable;
  calendar_events: CalendarEventsTable;
  calendar_feeds: CalendarFeedsTable;
  cases: CasesTable;
  case_tickets: CaseTicketsTable;
  case_events: CaseEventsTable;
  channel_connections: ChannelConnectionsTable;
  channel_message_ids: ChannelMessageIdsTable;
  scheduled_messages: ScheduledMessagesTable;
  channel_reply_tokens: ChannelReplyTokensTable;
  report_ticket_facts: ReportTicketFactsTable;
  report_export_tokens: ReportExportTokensTable;
  report_dashboards: ReportDashboardsTable;
  report_slots: ReportSlotsTable;
  report_periods: ReportPeriodsTable;
  automation_rules: AutomationRulesTable;
  automation_runs: AutomationRunsTable;
  automation_chains: AutomationChainsTable;
  retention_rules: RetentionRulesTable;
  retention_runs: RetentionRunsTable;
  livechats: LiveChatsTable;
  chat_members: ChatMembersTable;
  workspace_chats: WorkspaceChatsTable;
  canned_replies: CannedRepliesTable;
  macros: MacrosTable;
  macro_runs: MacroRunsTable;
  mailboxes: MailboxesTable;
  email_message_ids: EmailMessageIdsTable;
  pricing: PricingTable;
  api_tokens: ApiTokensTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  sso_configs: SsoConfigsTable;
  sso_requests: SsoRequestsTable;
  sso_assertions: SsoAssertionsTable;
  sso_sessions: SsoSessionsTable;
  payments: PaymentsTable;
  kb_sites: KbSitesTable;
  kb_categories: KbCategoriesTable;
  kb_articles: KbArticlesTable;
  kb_questions: KbQuestionsTable;
  ai_models: AiModelsTable;
  ai_feedback: AiFeedbackTable;
  ai_settings: AiSettingsTable;
  time_entries: TimeEntriesTable;
}

export interface AccountsTable {
  id: Generated<number>;
  name: string;
  account_type: number;
  plan: number;
  /** JSON list of feature flags. */
  features: string;
  trial_ends_at: number | null;
  subscription_ends_at: number | null;
  require_2fa: Generated<number>;
  /** JSON object: product function key -> list of sub-keys (PLAN-16). */
  product_functions: Generated<string>;
  /** JSON object of account settings (LABEL-14): `duration` = days until a Resolved ticket closes. */
  settings: Generated<string>;
  /** CALL-14: the account's own call server (SIP over WebSocket), or null for the installation's. */
  sip_ws_url: string | null;
  /** Migration 0048: the after-call wrap-up in seconds (CALL-40). */
  acw_seconds: Generated<number>;
  /** 0033: the number of users the subscription is paid for (0 none). */
  seats: Generated<number>;
  /** 0065: the admin cancelled the subscription: it ends then and does not renew; null while it renews. */
  subscription_cancel_at: Generated<number | null>;
  created_at: number;
  updated_at: number;
}

export interface UsersTable {
  id: Generated<number>;
  account_id: number;
  username: string;
  name: string;
  email: string;
  password_hash: string;
  type: string;
  rank: number;
  /** JSON list of permission strings. */
  permission: string;
  active: number;
  /** Presence: ONLINE while any socket of the user is connected, else OFFLINE. */
  status: string;
  /** The status the user chose when it is not Online (built-in or custom); '' when Online. */
  second_status: Generated<string>;
  status_reason: string;
  status_since: number;
  last_seen_at: number | null;
  totp_secret: string | null;
  totp_enabled: Generated<number>;
  /** The TOTP time step of the last code used; codes of that step or older are refused. */
  totp_last_step: Generated<number>;
  /** JSON list of SHA-256 hashes of unused backup codes. */
  backup_codes: Generated<string>;
  /** JSON list of department ids. */
  departments: Generated<string>;
  password_changed_at: Generated<number>;
  /** PROFILE-16: the profile picture's URL (an upload's thumbnail), or null. */
  photo: string | null;
  /** CALL-02, CALL-03: the user's SIP line: 1 when active, its number and password. */
  sip_active: Generated<number>;
  sip_number: Generated<string>;
  sip_password: Generated<string>;
  created_at: number;
  updated_at: number;
}

export interface SessionsTable {
  id: Generated<number>;
  account_id: number;
  user_id: number;
  token_hash: string;
  refresh_hash: string;
  user_agent: string;
  ip: string;
  created_at: number;
  last_seen_at: number;
  expires_at: number;
  revoked_at: number | null;
  token_expires_at: number;
  previous_refresh_hash: string | null;
  rotated_at: Generated<number>;
}

export interface AccountSeqTable {
  account_id: number;
  last_seq: number;
}

export interface EventsTable {
  id: Generated<number>;
  account_id: number;
  seq: number;
  type: string;
  payload: string;
  /** Socket event name and JSON list of rooms, when the event goes to sockets. */
  socket_event: string | null;
  rooms: string;
  created_at: number;
  available_at: number;
  lease_owner: string | null;
  lease_until: number | null;
  attempts: number;
  delivered_at: number | null;
  last_error: string | null;
}

export interface EventReceiptsTable {
  account_id: number;
  listener: string;
  event_id: number;
  processed_at: number;
}

export interface TaskLeasesTable {
  name: string;
  owner: string;
  lease_until: number;
  last_run_at: number | null;
}

export interface UserConnectionsTable {
  socket_id: string;
  account_id: number;
  user_id: number;
  node_id: string;
  connected_at: number;
}

export interface NodesTable {
  node_id: string;
  seen_at: number;
}

export interface CustomStatusesTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  needs_reason: Generated<number>;
  created_at: number;
}

export interface AnnouncementsTable {
  id: Generated<number>;
  account_id: number;
  message: string;
  level: Generated<string>;
  created_by: string;
  created_at: number;
  expires_at: number | null;
  removed_at: number | null;
}

export interface StatusPeriodsTable {
  id: Generated<number>;
  account_id: number;
  user_id: number;
  status: string;
  reason: string;
  started_at: number;
  ended_at: number | null;
}

export interface DepartmentsTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  created_at: number;
}

export interface LabelsTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  color: string;
  color_dark: string;
  level: number;
  sla: number;
  removed: number;
  created_at: number;
}

/** 0016: tickets per account, status, channel and department (0 = none), kept by triggers on `tickets`. */
export interface TicketCountsTable {
  account_id: number;
  closed: number;
  channel: string;
  department_id: number;
  n: number;
}

/** 0016: one row per label of a ticket, with the list's filter columns copied, kept by triggers on `tickets`. */
export interface TicketLabelsTable {
  account_id: number;
  ticket_id: number;
  label_id: number;
  closed: number;
  channel: string;
  department_id: number | null;
  created_at: number;
  updated_at: number;
}

export interface TicketsTable {
  id: Generated<number>;
  account_id: number;
  ticket_number: number;
  title: string;
  channel: string;
  closed: number;
  priority: string;
  /** JSON list of label ids. */
  label: string;
  department_id: number | null;
  assignee: string;
  name: string;
  email: string;
  phone: string;
  created_at: number;
  updated_at: number;
  case_type: Generated<string>;
  campaign_id: number | null;
  /** 1 once an agent has answered the customer. */
  has_responded: Generated<number>;
  /** When the last customer message came in; 0 when none has. */
  last_message_at: Generated<number>;
  /** JSON object of free-form fields (TICKET-15 `other`). */
  other: Generated<string>;
  /** 0010 (MSG-52): the language replies are translated into, and the customer's own. */
  language: Generated<string>;
  source_lang: Generated<string>;
  /** 0009 (TICKET-14): '' when not encrypted, else rsa or aes. */
  encryption_method: Generated<string>;
  /** 0019 (TICKET-14, TICKET-15): 1 once a message with files is stored (a trigger on messages). */
  attachment: Generated<number>;
  ref: Generated<string>;
  receiver_email: Generated<string>;
  emotion: Generated<string>;
  /** JSON object: emotion name -> count. */
  emotion_2: Generated<string>;
  /** '' | inbound | outbound. */
  call_direction: Generated<string>;
  did: Generated<string>;
  default_chat: Generated<number>;
  /** The user who opened the ticket; null when a customer did. */
  user_id: Generated<number | null>;
  /** 0029: the mailbox an e-mail ticket came in through (its replies leave from it); null otherwise. */
  mailbox_id: Generated<number | null>;
  /** 0034: the contact the conversation is with; null for Workspace chats and unknown customers. */
  contact_id: Generated<number | null>;
  /** 0041: the messaging connection a channel ticket came in through (its replies leave on it). */
  channel_connection_id: Generated<number | null>;
  /** 0041: the customer's id at the provider (a WhatsApp number, a Telegram chat id). */
  channel_peer: Generated<string | null>;
  /** 0054: when a retention rule or an erasure anonymised it; null while it holds the customer's data. */
  anonymised_at: Generated<number | null>;
}

/** Per-user read state (TICKET-21 `reader`, TICKET-41): the last time each user read each ticket. */
export interface TicketReadsTable {
  account_id: number;
  ticket_id: number;
  user_id: number;
  read_at: number;
}

/** 0009: an account's custom ticket statuses (code 5 and up; alternate '0' = open-type). */
export interface TicketStatusesTable {
  id: Generated<number>;
  account_id: number;
  status_code: number;
  name: string;
  alternate: Generated<string>;
  /** 1 once deleted: the code is never given out again. */
  removed: Generated<number>;
  created_at: number;
}

/** 0009: a department whose new tickets are assigned automatically, and how. */
export interface DepartmentAssignmentTable {
  department_id: number;
  account_id: number;
  strategy: string;
}

/** Every assignment of a ticket to a user, manual or automatic (0008); the rotation reads it back. */
export interface TicketAssignmentsTable {
  id: Generated<number>;
  account_id: number;
  ticket_id: number;
  username: string;
  /** Who assigned: a username, or 'server' for automatic assignment without a caller. */
  assigned_by: string;
  /** 'manual', 'round_robin' or 'least_loaded'. */
  how: string;
  assigned_at: number;
}

/** 0069: the account's product catalogue (docs/products.md). */
export interface ProductsTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  /** The name lower-cased: unique per account. */
  name_lower: string;
  code: string | null;
  /** The code lower-cased: unique per account when set. */
  code_lower: string | null;
  description: string;
  /** 1 in the catalogue, 0 archived. */
  active: number;
  created_by: number;
  created_at: number;
  updated_at: number;
}

/** 0069: a ticket linked to a product (many to many). */
export interface ProductTicketsTable {
  account_id: number;
  product_id: number;
  ticket_id: number;
  linked_by: number;
  linked_at: number;
}

/** 0069: a knowledge base article linked to a product (many to many). */
export interface ProductArticlesTable {
  account_id: number;
  product_id: number;
  article_id: number;
  linked_by: number;
  linked_at: number;
}

export interface CampaignsTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  created_at: number;
}

export interface MessagesTable {
  id: Generated<number>;
  account_id: number;
  ticket_id: number;
  type: string;
  message: string;
  sender: string;
  client_id: string | null;
  created_at: number;
  /** 0010: the sender's display name when it was written. */
  sender_name: Generated<string>;
  pinned: Generated<number>;
  /** JSON list of MessageFile. */
  files: Generated<string>;
  /** JSON object: language -> text (MSG-07). */
  translated_text: Generated<string>;
  emotion_2: Generated<string>;
  context: Generated<string>;
  /** 0052, AI-02: the engine's next best action in words ('' for none) and its findings (JSON lists). */
  recommendation: Generated<string>;
  aiqon_results: Generated<string>;
  scam_results: Generated<string>;
  reply_id: number | null;
  /** Soft delete: the message leaves every view; `syncDelete` and `/event` tell clients. */
  deleted_at: number | null;
  deleted_by: string | null;
  /** JSON {to, cc, subject, email2, template} of an e-mail reply. */
  email_meta: string | null;
  /** 0029: sending | sent | failed for a reply sent through the ticket's mailbox; null otherwise. */
  email_state: Generated<string | null>;
  /** 0029: the SMTP server's words of the last failure. */
  email_error: Generated<string | null>;
  /** 0029: when the send under way began; null when none is. */
  email_attempt_at: Generated<number | null>;
  /** 0041: sending | sent | delivered | read | failed for a reply on a messaging channel; null otherwise. */
  delivery_state: Generated<string | null>;
  /** 0041: the provider's words of the last failure. */
  delivery_error: Generated<string | null>;
  /** 0041: when the send under way began; null when none is. */
  delivery_attempt_at: Generated<number | null>;
}

/** MSG-16. */
export interface MessageNotesTable {
  id: Generated<number>;
  account_id: number;
  ticket_id: number;
  message_id: number;
  sender: string;
  text: string;
  created_at: number;
  updated_at: number;
}

/** A note on the ticket as a whole (staff only; migration 0026). */
export interface TicketNotesTable {
  id: Generated<number>;
  account_id: number;
  ticket_id: number;
  sender: string;
  text: string;
  created_at: number;
  updated_at: number;
}

/** MSG-17: one row per user, message and emoji. */
export interface MessageReactionsTable {
  id: Generated<number>;
  account_id: number;
  ticket_id: number;
  message_id: number;
  username: string;
  reaction: string;
  emoji_text: string;
  created_at: number;
}

/** MSG-35: a stored file; `key` names it on disk and in its URL. */
export interface UploadsTable {
  id: Generated<number>;
  account_id: number;
  ticket_id: number | null;
  user_id: number | null;
  key: string;
  name: string;
  mime: string;
  size: number;
  thumb_key: string | null;
  created_at: number;
}

export interface AuditLogTable {
  id: Generated<number>;
  account_id: number;
  user_id: number | null;
  actor: string;
  action: string;
  detail: string;
  ip: string;
  created_at: number;
}

export interface LoginAttemptsTable {
  id: Generated<number>;
  account_id: number | null;
  username: string;
  ip: string;
  success: number;
  created_at: number;
}

/** Hits counted against public calls (sign-up, password-reset requests), per key; see `takeHits`. */
export interface RateLimitHitsTable {
  id: Generated<number>;
  key: string;
  created_at: number;
}

export interface OneTimeTokensTable {
  id: Generated<number>;
  account_id: number;
  user_id: number;
  purpose: 'reset' | 'handoff';
  token_hash: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

/** Migration 0011: one notification of one user. `img` is JSON `{uid, file_name}` or null. */
export interface NotificationsTable {
  id: Generated<number>;
  account_id: number;
  user_id: number;
  category: string;
  type: string;
  channel: string;
  title: string;
  body: string;
  img: string | null;
  ticket_id: number | null;
  ticket_number: number | null;
  seen: Generated<number>;
  /** What raised it; unique per user, so a repeated event adds nothing. */
  source: string | null;
  created_at: number;
}

/** A browser's Web Push subscription (NOTIF-35). */
export interface PushSubscriptionsTable {
  id: Generated<number>;
  account_id: number;
  user_id: number;
  endpoint: string;
  p256dh: string;
  auth: string;
  domain: string;
  created_at: number;
  /** JSON list of the channels whose MessageNotification choice is off in that browser; null: all on (0015). */
  channels_off: string | null;
}

/** Whether a tab (socket) of a user has focus; rows older than two minutes are stale. */
export interface NotificationFocusTable {
  socket_id: string;
  account_id: number;
  user_id: number;
  focused: number;
  updated_at: number;
}

/** The current SLA wait of a ticket: one row per ticket. */
export interface SlaTimersTable {
  ticket_id: number;
  account_id: number;
  label_id: number;
  sla_minutes: number;
  started_at: number;
  warn_at: number;
  due_at: number;
  warned_at: number | null;
  violated_at: number | null;
  answered_at: number | null;
  next_at: number | null;
  updated_at: number;
  /** Migration 0027: `first_response` or `next_response`, as the wait was timed. */
  target: Generated<string>;
  /** When the ticket went Pending (the wait is paused); null while it counts. */
  paused_at: number | null;
  /** Business time spent Pending during this wait, in ms: the due time moves by it. */
  paused_ms: Generated<number>;
}

/** Migration 0027: a ticket's resolution target, from its creation until Resolved or Closed (`stopped_at`). */
export interface SlaResolutionTimersTable {
  ticket_id: number;
  account_id: number;
  sla_minutes: number;
  started_at: number;
  warn_at: number;
  due_at: number;
  warned_at: number | null;
  violated_at: number | null;
  stopped_at: number | null;
  paused_at: number | null;
  paused_ms: Generated<number>;
  next_at: number | null;
  updated_at: number;
}

/** Opening hours of an account (department_id 0) or of one department; `days` is JSON (contracts WeekSchedule). */
export interface BusinessHoursTable {
  id: Generated<number>;
  account_id: number;
  department_id: number;
  timezone: string;
  days: string;
  updated_at: number;
}

/** A day off (YYYY-MM-DD) of an account (department_id 0) or of one department. */
export interface HolidaysTable {
  id: Generated<number>;
  account_id: number;
  department_id: number;
  date: string;
  name: string;
}

/** An SLA policy; null conditions match anything, null targets are none. Tried in `position` order. */
export interface SlaPoliciesTable {
  id: Generated<number>;
  account_id: number;
  position: number;
  name: string;
  priority: string | null;
  channel: string | null;
  label_id: number | null;
  department_id: number | null;
  first_response: number | null;
  next_response: number | null;
  resolution: number | null;
  calendar: number;
  created_at: number;
}

/** A reporting fact: one per wait that went past its SLA. */
export interface SlaBreachesTable {
  id: Generated<number>;
  account_id: number;
  ticket_id: number;
  ticket_number: number;
  label_id: number;
  sla_minutes: number;
  waited_from: number;
  due_at: number;
  breached_at: number;
  assignee: string;
  department_id: number | null;
  /** 1 when alerts went out, 0 when the monthly quota was used up. */
  alerted: number;
  /** Migration 0027: `first_response`, `next_response` or `resolution`. */
  target: Generated<string>;
}

/** SLA alerts sent per account and month (`2026-05`), and when admins were told the quota was used up. */
export interface SlaUsageTable {
  account_id: number;
  month: string;
  alerts: number;
  quota_notice_at: number | null;
}

/** Small server-wide state: VAPID keys (when not in the data dir), the SLA scan watermark. */
export interface ServerStateTable {
  name: string;
  value: string;
  created_at: number;
}

/** Migration 0012: the account's visitor link token and automatic offering. */
export interface LiveChatSettingsTable {
  account_id: number;
  token: string;
  auto_offer: Generated<number>;
  department_id: number | null;
  offer_seconds: Generated<number>;
  created_at: number;
}

/** Migration 0012: a visitor's browser session (its csrf, hashed). */
export interface LiveChatVisitorsTable {
  id: Generated<number>;
  account_id: number;
  csrf_hash: string;
  name: Generated<string>;
  created_at: number;
}

/** Migration 0012: a live chat: queued, then a LIVECHAT ticket once accepted; its CSAT rating. */
export interface LiveChatsTable {
  id: Generated<number>;
  account_id: number;
  visitor_id: number;
  session_id: number;
  state: string;
  name: string;
  phone: string;
  email: string;
  ic: Generated<string>;
  message: string;
  department_id: number | null;
  ticket_id: number | null;
  agent: Generated<string>;
  queued_at: number;
  accepted_at: number | null;
  ended_at: number | null;
  offered_user_id: number | null;
  offered_at: number | null;
  skipped: Generated<string>;
  rating: number | null;
  reason: Generated<string>;
  rated_at: number | null;
  /** The page the chat was started from and the visitor's browser (User-Agent); '' when not known. */
  page: Generated<string>;
  browser: Generated<string>;
  /** 0054: when a retention rule anonymised the visitor's details; null while they are kept. */
  anonymised_at: Generated<number | null>;
  /** 0064: when the visitor had the transcript e-mailed (once per chat); null while not sent. */
  transcript_sent_at: Generated<number | null>;
}

/** Migration 0012: the members of a Workspace chat (a 'chat' ticket). */
export interface ChatMembersTable {
  account_id: number;
  ticket_id: number;
  user_id: number;
  username: string;
  joined_at: number;
  read_at: Generated<number>;
}

/** Migration 0013: a Workspace chat's kind; `direct_key` makes one 1:1 chat per pair of users. */
export interface WorkspaceChatsTable {
  id: Generated<number>;
  account_id: number;
  ticket_id: number;
  kind: string;
  direct_key: string | null;
  created_by: number;
  created_at: number;
}

/** 0023: canned replies; `owner_id` 0 is shared (the account's), else the owner's personal reply. */
export interface CannedRepliesTable {
  id: Generated<number>;
  account_id: number;
  owner_id: number;
  title: string;
  shortcut: string;
  shortcut_lower: string;
  body: string;
  /** JSON list of ticket channels; [] is every channel. */
  channels: string;
  created_by: number;
  created_at: number;
  updated_at: number;
}

/** 0023: the account's macros; `actions` is the JSON list of MacroAction. */
export interface MacrosTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  name_lower: string;
  actions: string;
  created_by: number;
  created_at: number;
  updated_at: number;
}

/** 0023: one run of a macro and what it changed per ticket (JSON), for undo. */
export interface MacroRunsTable {
  id: Generated<number>;
  account_id: number;
  macro_id: number;
  user_id: number;
  changes: string;
  created_at: number;
  undone_at: number | null;
}

/** 0028: an account's connected mailbox; `*_secret` sealed with SECRETS_KEY ('' none). */
export interface MailboxesTable {
  id: Generated<number>;
  account_id: number;
  address: string;
  address_lower: string;
  name: Generated<string>;
  department_id: number | null;
  active: Generated<number>;
  imap_host: string;
  imap_port: number;
  imap_tls: number;
  imap_user: string;
  imap_secret: Generated<string>;
  smtp_host: string;
  smtp_port: number;
  smtp_tls: number;
  smtp_user: string;
  smtp_secret: Generated<string>;
  /** The IMAP UIDVALIDITY (a 32-bit number, as text) that `last_uid` counts in; null before the first fetch. */
  uid_validity: string | null;
  last_uid: Generated<number>;
  /** The node fetching it, until when (ms). */
  lease_owner: Generated<string>;
  lease_until: Generated<number>;
  last_error: string | null;
  last_error_at: number | null;
  last_fetch_at: number | null;
  created_at: number;
  updated_at: number;
  /** 0030: the secret part of the forwarding address `mbx-<id>-<token>@<INBOUND_SMTP_DOMAIN>`. */
  inbound_token: Generated<string>;
  /** 0030: the DKIM selector replies are signed under; '' none. */
  dkim_selector: Generated<string>;
  /** 0030: the DKIM private key (PEM) sealed with SECRETS_KEY; '' none. */
  dkim_secret: Generated<string>;
  /** 0031: imap | graph (Microsoft 365 through the Graph mail API). */
  kind: Generated<string>;
  graph_tenant_id: Generated<string>;
  graph_client_id: Generated<string>;
  /** 0031: the app's client secret, sealed with SECRETS_KEY ('' none). */
  graph_secret: Generated<string>;
  /** 0031: the Graph subscription on the Inbox and when it expires (ms); null before one is made. */
  graph_subscription_id: string | null;
  graph_subscription_until: number | null;
  /** 0031: the subscription's clientState, sealed; a notification must carry it. */
  graph_client_state: Generated<string>;
  /** 0031: the Inbox's delta link (the fallback poll); null before the first round. */
  graph_delta_link: string | null;
}

/** 0028: a Message-ID the account has seen and its ticket; unique per account. */
export interface EmailMessageIdsTable {
  id: Generated<number>;
  account_id: number;
  message_id: string;
  ticket_id: number;
  mailbox_id: number | null;
  /** The message row it was stored as; null for a mail kept only as an id. */
  message_row_id: number | null;
  /** in | out. */
  direction: string;
  created_at: number;
  /** 0029: an inbound mail's References, space-separated, oldest first; null when none. */
  refs: Generated<string | null>;
}

/** 0033: the installation's price of a plan per user per month in a country ('*' the default). */
export interface PricingTable {
  country: string;
  plan: number;
  currency: string;
  /** Decimal text, 2 decimals. */
  price: string;
  /** A fraction as decimal text ("0.06"). */
  tax: string;
  updated_at: number;
}

/** 0033: a payment an account started (PAY-22). */
export interface PaymentsTable {
  id: Generated<number>;
  account_id: number;
  user_id: number | null;
  ref: string;
  provider: string;
  provider_ref: Generated<string>;
  provider_subscription: Generated<string>;
  /** 0065: the provider's customer of a paid checkout (Stripe refunds find the account by it). */
  provider_customer: Generated<string>;
  plan: number;
  quantity: number;
  country: string;
  currency: string;
  price: string;
  tax: string;
  total: string;
  status: Generated<string>;
  payment_desc: Generated<string>;
  created_at: number;
  settled_at: number | null;
}

/** Migration 0034: the account's contacts; `merged_into` while merged into another one. */
export interface ContactsTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  name_lower: string;
  salutation: Generated<string>;
  id_type: Generated<string>;
  id_number: Generated<string>;
  notes: Generated<string>;
  merged_into: number | null;
  last_seen_at: number;
  created_at: number;
  updated_at: number;
  /** Migration 0059: how many of its tickets are open, kept by triggers on `tickets`. */
  open_tickets: Generated<number>;
}

/** Migration 0034: an address a contact owns, in its canonical form; one owner per value in an account. */
export interface ContactIdentifiersTable {
  id: Generated<number>;
  account_id: number;
  contact_id: number;
  kind: string;
  value: string;
  verified: number;
  created_at: number;
}

/** Migration 0034: a merge of `merged_id` into `kept_id`, with what it moved (JSON id lists). */
export interface ContactMergesTable {
  id: Generated<number>;
  account_id: number;
  kept_id: number;
  merged_id: number;
  identifier_ids: string;
  ticket_ids: string;
  kept_last_seen_at: number;
  created_by: number;
  created_at: number;
  undone_at: number | null;
}

/** Migration 0037: an account's forms; `main` 1 for the Main tab's; `fields` JSON. */
export interface FormsTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  main: number;
  token: string;
  active: number;
  fields: string;
  start_index: number;
  data_per_page: number;
  created_at: number;
  updated_at: number;
}

/** Migration 0037: one submission of a form: `form_data` JSON, the ticket it opened. */
export interface FormEntriesTable {
  id: Generated<number>;
  account_id: number;
  form_id: number;
  form_data: string;
  ticket_id: number | null;
  created_at: number;
}

/** 0035: the account's public knowledge-base token. */
export interface KbSitesTable {
  account_id: number;
  token: string;
  created_at: number;
}

/** 0035: a category of one collection (`kb` or `manual`) and language. */
export interface KbCategoriesTable {
  id: Generated<number>;
  account_id: number;
  type: string;
  lang: string;
  name: string;
  position: Generated<number>;
  created_at: number;
}

/** 0035: an article: Markdown body, `draft` or `published`. */
export interface KbArticlesTable {
  id: Generated<number>;
  account_id: number;
  type: string;
  lang: string;
  category_id: number | null;
  slug: string | null;
  title: string;
  body: string;
  status: string;
  created_by: number;
  created_at: number;
  updated_by: number;
  updated_at: number;
  published_at: number | null;
}

/** 0035: the questions (Q&A entries) of an article, in order. */
export interface KbQuestionsTable {
  id: Generated<number>;
  account_id: number;
  article_id: number;
  position: number;
  question: string;
  answer: string;
}

/** Migration 0038: a ticket's satisfaction survey; `rating` 1-5 once answered. */
export interface TicketSurveysTable {
  id: Generated<number>;
  account_id: number;
  ticket_id: number;
  token: string;
  rating: number | null;
  comment: Generated<string>;
  created_at: number;
  answered_at: number | null;
}

/** Migration 0039: an account's calendar event. */
export interface CalendarEventsTable {
  id: Generated<number>;
  account_id: number;
  title: string;
  starts_at: number;
  ends_at: number;
  all_day: number;
  notes: string;
  contact_id: number | null;
  ticket_id: number | null;
  created_by: number;
  created_at: number;
  updated_at: number;
}

/** Migration 0039: a user's private iCalendar feed token. */
export interface CalendarFeedsTable {
  id: Generated<number>;
  account_id: number;
  user_id: number;
  token: string;
  created_at: number;
}

/** Migration 0040: a case (a customer matter grouping tickets). */
export interface CasesTable {
  id: Generated<number>;
  account_id: number;
  title: string;
  case_type: string;
  stage: string;
  owner_id: number | null;
  contact_id: number | null;
  due_at: number | null;
  created_by: number;
  created_at: number;
  updated_at: number;
}

/** Migration 0040: a ticket of a case. */
export interface CaseTicketsTable {
  id: Generated<number>;
  account_id: number;
  case_id: number;
  ticket_id: number;
  created_at: number;
}

/** Migration 0040: a line of a case's timeline. */
export interface CaseEventsTable {
  id: Generated<number>;
  account_id: number;
  case_id: number;
  kind: string;
  text: string;
  user_id: number;
  created_at: number;
}

/** Migration 0041: a messaging provider account connected by an admin. */
export interface ChannelConnectionsTable {
  id: Generated<number>;
  account_id: number;
  /** A ChannelKind: whatsapp, messenger, instagram, telegram, line or sms. */
  kind: string;
  name: string;
  department_id: number | null;
  active: Generated<number>;
  /** JSON of the settings that are not secret. */
  settings: Generated<string>;
  /** JSON of values sealed with SECRETS_KEY (tokens, app secret). */
  secrets: Generated<string>;
  webhook_key: string;
  verify_token: string;
  last_error: string | null;
  last_error_at: number | null;
  last_event_at: number | null;
  created_at: number;
  updated_at: number;
}

/** Migration 0041: a provider's message id, in or out, once per connection. */
export interface ChannelMessageIdsTable {
  id: Generated<number>;
  account_id: number;
  connection_id: number;
  provider_id: string;
  ticket_id: number;
  message_row_id: number | null;
  /** in | out. */
  direction: string;
  created_at: number;
}

/** Migration 0042: an agent's reply kept until its time. */
export interface ScheduledMessagesTable {
  id: Generated<number>;
  account_id: number;
  ticket_id: number;
  user_id: number;
  sender: string;
  sender_name: string;
  message: string;
  send_at: number;
  /** pending | sent | cancelled | failed. */
  state: Generated<string>;
  error: string | null;
  message_row_id: number | null;
  created_at: number;
  updated_at: number;
  /** 0045: JSON {to, cc, subject} of a scheduled e-mail reply; null when none were given. */
  email_meta: Generated<string | null>;
}

/** Migration 0043: a customer's latest single-use reply token on a connection (LINE), with its message's time. */
export interface ChannelReplyTokensTable {
  id: Generated<number>;
  account_id: number;
  connection_id: number;
  peer: string;
  token: string;
  at: number;
}

/** Migration 0044: what the reports read of one customer conversation, kept as events happen (docs/reports.md). */
export interface ReportTicketFactsTable {
  ticket_id: number;
  account_id: number;
  channel: string;
  department_id: number | null;
  /** The first of the ticket's assignees, '' when none. */
  assignee: Generated<string>;
  created_at: number;
  /** The ticket's status code as last seen (a done one becoming open again is a reopen). */
  closed: Generated<number>;
  first_customer_at: number | null;
  first_response_at: number | null;
  first_response_ms: number | null;
  /** When it was last resolved or closed; null while it is open. */
  resolved_at: number | null;
  resolution_ms: number | null;
  reopen_count: Generated<number>;
  /** 1 once any SLA target of the ticket was breached. */
  sla_breached: Generated<number>;
  /** The customer's rating 1-5 (a survey's or a live chat's), null when none. */
  csat: number | null;
  updated_at: number;
}

/** Migration 0046: per 15 minutes and channel, the conversations made, first answered and resolved in it. */
export interface ReportSlotsTable {
  account_id: number;
  /** The slot's first moment, ms (a multiple of 15 minutes). */
  slot: number;
  channel: string;
  received: Generated<number>;
  answered: Generated<number>;
  resolved: Generated<number>;
}

/**
 * Migration 0046: how the conversations made in one hour (`period` 'h') or UTC day ('d') went, under one channel
 * (`dim` 'c'), first assignee ('a') or department ('d'). Besides these counts it has the histogram columns
 * `fr0..fr70` (first response) and `rs0..rs70` (resolution), written and read by reports/rollups.ts with SQL of
 * its own.
 */
export interface ReportPeriodsTable {
  account_id: number;
  period: string;
  /** The hour's or the day's first moment, ms. */
  at: number;
  dim: string;
  k: string;
  n: Generated<number>;
  answered: Generated<number>;
  resolved: Generated<number>;
  reopened: Generated<number>;
  breached: Generated<number>;
  rated: Generated<number>;
  csat_sum: Generated<number>;
}

/** Migration 0044: a report export link's secret (as its SHA-256), who asked for it and until when it works. */
export interface ReportExportTokensTable {
  id: Generated<number>;
  account_id: number;
  user_id: number;
  token_hash: string;
  expires_at: number;
}

/** Migration 0044: a public read-only dashboard's link (its secret as SHA-256); deleting the row revokes it. */
export interface ReportDashboardsTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  token_hash: string;
  created_by: string;
  created_at: number;
}

/** Migration 0049: an API token (its secret as SHA-256), whose it is, what it may do; revoking stamps `revoked_at`. */
export interface ApiTokensTable {
  id: Generated<number>;
  account_id: number;
  user_id: number;
  /** personal | account */
  kind: string;
  name: string;
  token_hash: string;
  /** The token's first characters, shown to tell tokens apart. */
  hint: string;
  /** JSON array: read, write. */
  scopes: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

/** Migration 0049: an outgoing webhook: where to post which events, signed with `secret`. */
export interface WebhooksTable {
  id: Generated<number>;
  account_id: number;
  url: string;
  /** JSON array of event names (WEBHOOK_EVENTS). */
  events: string;
  secret: string;
  active: number;
  created_by: number;
  created_at: number;
  updated_at: number;
}

/** Migration 0049: one delivery of an event to a webhook: the body as sent and its last attempt's outcome. */
export interface WebhookDeliveriesTable {
  id: Generated<number>;
  account_id: number;
  webhook_id: number;
  event: string;
  body: string;
  /** pending | delivered | failed */
  state: string;
  attempts: number;
  status_code: number | null;
  error: string;
  created_at: number;
  last_attempt_at: number | null;
  redelivery_of: number | null;
}

/** Migration 0055: an account's single sign-on (docs/sso.md). */
export interface SsoConfigsTable {
  id: Generated<number>;
  account_id: number;
  /** The sign-in name users type on the sign-in page (unique across the installation). */
  slug: string;
  /** oidc | saml */
  kind: string;
  enabled: Generated<number>;
  sso_only: Generated<number>;
  /** What a user created on first sign-in becomes: agent, supervisor or admin. */
  jit_type: Generated<string>;
  jit_department_id: number | null;
  oidc_issuer: Generated<string>;
  oidc_client_id: Generated<string>;
  /** Sealed with SECRETS_KEY; never answered. */
  oidc_client_secret: Generated<string>;
  oidc_scopes: Generated<string>;
  /** The IdP metadata XML as uploaded ('' when entered by hand). */
  saml_metadata: Generated<string>;
  saml_idp_entity_id: Generated<string>;
  saml_entry_point: Generated<string>;
  saml_logout_url: Generated<string>;
  /** JSON list of the IdP's signing certificates (base64 DER, no PEM armour). */
  saml_certs: Generated<string>;
  saml_sp_entity_id: Generated<string>;
  updated_by: number;
  created_at: number;
  updated_at: number;
}

/** Migration 0055: a sign-in under way (OIDC state or SAML request id, by SHA-256); used once. */
export interface SsoRequestsTable {
  id: Generated<number>;
  account_id: number;
  kind: string;
  key_hash: string;
  nonce: Generated<string>;
  verifier: Generated<string>;
  created_at: number;
  expires_at: number;
}

/** Migration 0055: a SAML assertion id already used, kept until it expires. */
export interface SsoAssertionsTable {
  id: Generated<number>;
  account_id: number;
  assertion_id: string;
  expires_at: number;
}

/** Migration 0055: a Parley session opened through single sign-on. */
export interface SsoSessionsTable {
  id: Generated<number>;
  account_id: number;
  session_id: number;
  kind: string;
  /** OIDC: the ID token, the `id_token_hint` of the identity provider's sign-out. */
  id_token: Generated<string>;
  created_at: number;
  /** 0061, SAML: the NameID (and its format) and SessionIndex of the assertion that opened the session. */
  name_id: Generated<string>;
  name_id_format: Generated<string>;
  session_index: Generated<string>;
}

/** 0047: an automation rule; `conditions` and `actions` are JSON (contracts/automation.ts). */
export interface AutomationRulesTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  position: number;
  enabled: number;
  event: string;
  conditions: string;
  actions: string;
  /** The admin who last saved it: replies and notes of the rule go out in their name. */
  author_id: number;
  created_at: number;
  updated_at: number;
}

/** 0047: one run of a rule on one event (unique per rule and event); `matched` and `did` are JSON lists. */
export interface AutomationRunsTable {
  id: Generated<number>;
  account_id: number;
  rule_id: number;
  event_id: number;
  event: string;
  ticket_id: number;
  ticket_number: number;
  outcome: string;
  matched: string;
  did: string;
  reason: string;
  created_at: number;
  /** 0060: the live chat of a run on "Live chat queued" (its ticket_id and ticket_number are 0); else null. */
  livechat_id: Generated<number | null>;
}

/** 0047: the rule ids (JSON list, oldest first) whose changes led to an event; the loop guard reads it. */
export interface AutomationChainsTable {
  event_id: number;
  account_id: number;
  chain: string;
  created_at: number;
}

/** Migration 0048: what only a call has; the CALL ticket holds direction, number, DID and assignees. */
export interface CallsTable {
  id: Generated<number>;
  account_id: number;
  ticket_id: number;
  /** The call server's id of the call, unique per account. */
  call_id: string;
  /** The user whose softphone reported the call. */
  user_id: number | null;
  started_at: number;
  ended_at: number | null;
  /** Seconds. */
  duration: Generated<number>;
  /** The recording, an upload of the account ('' none), and its file name. */
  recording_key: Generated<string>;
  recording_name: Generated<string>;
  /** CALL-31 steps read from the recording; null until read. */
  energy: number | null;
  pace: number | null;
  personality: Generated<string>;
}

/** Migration 0048: one transcript entry of a call (CALL-32). */
export interface CallTranscriptsTable {
  id: Generated<number>;
  account_id: number;
  ticket_id: number;
  source: string;
  transcription: string;
  translated_transcription: Generated<string>;
  interim: Generated<number>;
  data_id: Generated<string>;
  energy: number | null;
  pace: number | null;
  emotion: Generated<string>;
  personality: Generated<string>;
  created_at: number;
}

/** Migration 0066: a call the offline engine read as a possible scam (Scam Calls). */
export interface CallScamsTable {
  id: Generated<number>;
  account_id: number;
  ticket_id: number;
  kind: string;
  /** Hundredths (0..100). */
  confidence: number;
  flagged_at: number;
}

/** Migration 0048: a DID of the account and what it is (CALL-35). */
export interface CallDidsTable {
  id: Generated<number>;
  account_id: number;
  did: string;
  description: string;
}

/** Migration 0051: an account's AI settings (one row at most; none: the built-in engine). */
export interface AiSettingsTable {
  account_id: number;
  /** `offline` or `openai` (AI_PROVIDERS). */
  provider: string;
  base_url: string;
  model: string;
  /** The API key sealed with SECRETS_KEY (bound to the account), '' when none. Never answered. */
  key_sealed: string;
  key_last4: string;
  /** `installation` or `openai` (AI_TRANSLATORS). */
  translator: string;
  updated_by: number | null;
  updated_at: number;
}

/** Migration 0050: an account's ticket classifier (docs/ai.md). */
export interface AiModelsTable {
  account_id: number;
  /** JSON of the naive Bayes model (classes with their word counts); '' when the tickets were too few. */
  model: string;
  /** Labelled tickets it was trained on (or found), and how many labels (classes) they carry. */
  labelled: number;
  classes: number;
  /** 0 with a model; else the labelled tickets "not enough data" says are needed. */
  needed: number;
  trained_at: number;
}

/** Migration 0050: a use or a dismissal of a suggestion; the latest verdict per message, agent, kind and source. */
export interface AiFeedbackTable {
  id: Generated<number>;
  account_id: number;
  message_id: number;
  user_id: number;
  /** what_to_say | next_action | classification | hint. */
  kind: string;
  /** used | dismissed. */
  verdict: string;
  /** article | reply, or '' when the suggestion has no source. */
  source_kind: string;
  /** The article's or the reply's id, or 0. */
  source_id: number;
  created_at: number;
}

/** Migration 0054: an account's retention rule: remove or anonymise `target` after `days` ('' channel: all). */
export interface RetentionRulesTable {
  id: Generated<number>;
  account_id: number;
  target: string;
  action: string;
  days: number;
  channel: string;
  created_by: number;
  created_at: number;
  updated_at: number;
}

/** Migration 0054: one retention run of an account (`schedule` or `manual`); `counts` JSON per rule. */
export interface RetentionRunsTable {
  id: Generated<number>;
  account_id: number;
  trigger: string;
  counts: string;
  started_at: number;
  finished_at: number;
}

/** Migration 0067: time tracked on a ticket by a user (docs/timer.md). */
export interface TimeEntriesTable {
  id: Generated<number>;
  account_id: number;
  ticket_id: number;
  user_id: number;
  /** The day the time counts for, YYYY-MM-DD. */
  work_day: string;
  started_at: number;
  /** Null while the timer runs. */
  ended_at: number | null;
  seconds: number;
  note: string;
  /** `timer` or `manual`. */
  source: string;
  created_at: number;
  updated_at: number;
}

/** Migration 0070: an instrument of the account's trading watch list (docs/trading.md). */
export interface TradingInstrumentsTable {
  id: Generated<number>;
  account_id: number;
  symbol: string;
  name: string;
  /** JSON array of strings. */
  aliases: string;
  created_at: number;
}

/** Migration 0070: an instrument named in a customer's message, with the engine's sentiment. */
export interface TradingMentionsTable {
  id: Generated<number>;
  account_id: number;
  instrument_id: number;
  message_id: number;
  ticket_id: number;
  channel: string;
  /** Hundredths, -100..100. */
  sentiment: number;
  at: number;
  /** UTC day, YYYY-MM-DD. */
  day: string;
}

/** CRYPT-02: a published key (RSA public key, or an AES key's fingerprint), one per user and method. */
export interface EncryptionKeysTable {
  id: Generated<number>;
  account_id: number;
  user_id: number;
  method: string;
  key_type: string;
  key_value: string;
  kid: string;
  updated_at: number;
}

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
  ticket_reads: TicketReadsTable;
  ticket_assignments: TicketAssignmentsTable;
  campaigns: CampaignsTable;
  messages: MessagesTable;
  audit_log: AuditLogTable;
  login_attempts: LoginAttemptsTable;
  one_time_tokens: OneTimeTokensTable;
}

export interface AccountsTable {
  id: Generated<number>;
  name: string;
  account_type: number;
  plan: number;
  /** JSON list of feature flags (DECISIONS 20). */
  features: string;
  trial_ends_at: number | null;
  subscription_ends_at: number | null;
  require_2fa: Generated<number>;
  /** JSON object: product function key -> list of sub-keys (PLAN-16). */
  product_functions: Generated<string>;
  /** JSON object of account settings (LABEL-14): `duration` = days until a Resolved ticket closes. */
  settings: Generated<string>;
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
  /** JSON list of SHA-256 hashes of unused backup codes. */
  backup_codes: Generated<string>;
  /** JSON list of department ids. */
  departments: Generated<string>;
  password_changed_at: Generated<number>;
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
}

/** Per-user read state (TICKET-21 `reader`, TICKET-41): the last time each user read each ticket. */
export interface TicketReadsTable {
  account_id: number;
  ticket_id: number;
  user_id: number;
  read_at: number;
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

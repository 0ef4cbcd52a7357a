import {
  isLiveChatChannel,
  PLANS,
  SLA_POLICY_STRINGS,
  SLA_STRINGS,
  type SlaTargetName,
  slaAlertQuota,
  slaMonth,
} from '@parley/contracts';
import { appendEvent, type Trx } from '../../platform/outbox/index.js';
import { notifyUsers } from '../notifications/index.js';

const parseIds = (s: string): number[] => {
  try {
    const v = JSON.parse(s) as unknown;
    return Array.isArray(v) ? v.filter((x): x is number => typeof x === 'number') : [];
  } catch {
    return [];
  }
};

export interface AlertTicket {
  id: number;
  accountId: number;
  ticketNumber: number;
  title: string;
  channel: string;
  assignee: string;
  departmentId: number | null;
}

/**
 * Who hears of a ticket's SLA: its assignees, or when it has none the agents of its department (every
 * active non-admin user when it has no department either), and always the account's admins. Active users only.
 */
export async function slaRecipients(trx: Trx, t: AlertTicket): Promise<number[]> {
  const users = await trx
    .selectFrom('users')
    .select(['id', 'username', 'type', 'departments'])
    .where('account_id', '=', t.accountId)
    .where('active', '=', 1)
    .execute();
  const assignees = new Set(
    t.assignee
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean),
  );
  const assigned = users.filter((u) => assignees.has(u.username.toLowerCase()));
  const team =
    assigned.length > 0
      ? assigned
      : users.filter((u) =>
          t.departmentId === null ? u.type !== 'admin' : parseIds(u.departments).includes(t.departmentId),
        );
  const admins = users.filter((u) => u.type === 'admin');
  return [...new Set([...team, ...admins].map((u) => Number(u.id)))];
}

/**
 * PLAN-19..23: takes one alert from the account's monthly quota. Returns false when it is used up; the
 * first time that happens in a month the admins are told once (an SLA-tab notification).
 */
export async function takeAlert(trx: Trx, accountId: number, now: number): Promise<boolean> {
  const account = await trx.selectFrom('accounts').select('plan').where('id', '=', accountId).executeTakeFirst();
  const quota = slaAlertQuota(Number(account?.plan ?? PLANS.trial));
  const month = slaMonth(now);
  await trx
    .insertInto('sla_usage')
    .values({ account_id: accountId, month, alerts: 0, quota_notice_at: null })
    .onConflict((oc) => oc.columns(['account_id', 'month']).doNothing())
    .execute();
  let q = trx
    .updateTable('sla_usage')
    .set((eb) => ({ alerts: eb('alerts', '+', 1) }))
    .where('account_id', '=', accountId)
    .where('month', '=', month);
  if (quota !== null) q = q.where('alerts', '<', quota);
  const r = await q.executeTakeFirst();
  if (Number(r.numUpdatedRows) === 1) return true;
  const told = await trx
    .updateTable('sla_usage')
    .set({ quota_notice_at: now })
    .where('account_id', '=', accountId)
    .where('month', '=', month)
    .where('quota_notice_at', 'is', null)
    .executeTakeFirst();
  if (Number(told.numUpdatedRows) === 1) {
    const admins = await trx
      .selectFrom('users')
      .select('id')
      .where('account_id', '=', accountId)
      .where('type', '=', 'admin')
      .where('active', '=', 1)
      .execute();
    await notifyUsers(trx, {
      accountId,
      userIds: admins.map((a) => Number(a.id)),
      category: 'sla',
      type: 'warning',
      channel: 'ticket',
      title: SLA_STRINGS.quotaTitle,
      body: SLA_STRINGS.quotaBody(quota ?? 0),
      source: `sla:quota:${month}`,
      at: now,
    });
  }
  return false;
}

/** What an alert is about: the response wait (the spec's texts) or the resolution target. */
export interface AlertWait {
  target: 'response' | 'resolution';
  startedAt: number;
  /** The target in minutes. */
  sla: number;
  /** The minutes counted so far: business minutes under business hours, less the time spent Pending. */
  waited: number;
}

/** `sla.breached`: a ticket's SLA target ran out, appended with its `sla_breaches` row. Payload `{ id }`. */
export const SLA_BREACHED = 'sla.breached';
/** `sla.warned`: a ticket's SLA target reached its warning point (once per wait). Payload `{ id, target }`. */
export const SLA_WARNED = 'sla.warned';

/** Sends one warning or violation about a ticket to its recipients. */
export async function sendSlaAlert(
  trx: Trx,
  t: AlertTicket,
  kind: 'warning' | 'violation',
  wait: AlertWait,
  now: number,
): Promise<number> {
  const resolution = wait.target === 'resolution';
  const R = SLA_POLICY_STRINGS;
  const title =
    kind === 'warning'
      ? (resolution ? R.resolutionWarningTitle : SLA_STRINGS.warningTitle)(t.ticketNumber)
      : (resolution ? R.resolutionViolationTitle : SLA_STRINGS.violationTitle)(t.ticketNumber);
  const body =
    kind === 'warning'
      ? (resolution ? R.resolutionWarningBody : SLA_STRINGS.warningBody)(t.title, wait.waited, wait.sla)
      : (resolution ? R.resolutionViolationBody : SLA_STRINGS.violationBody)(t.title, wait.sla);
  const sent = await notifyUsers(trx, {
    accountId: t.accountId,
    userIds: await slaRecipients(trx, t),
    category: 'sla',
    type: kind,
    channel: isLiveChatChannel(t.channel) ? 'livechat' : 'ticket',
    title,
    body,
    ticketId: t.id,
    ticketNumber: t.ticketNumber,
    // One alert of each kind per wait; the resolution's have their own (its wait may start with the first).
    source: `sla:${resolution ? `resolution-${kind}` : kind}:${t.id}:${wait.startedAt}`,
    at: now,
  });
  return sent.length;
}

/** The reporting fact of a breach: one row per ticket, target and wait (the first violation of it wins). */
export async function recordBreach(
  trx: Trx,
  ticket: AlertTicket,
  b: { target: SlaTargetName; labelId: number; slaMinutes: number; startedAt: number; dueAt: number },
  alerted: boolean,
  now: number,
) {
  const r = await trx
    .insertInto('sla_breaches')
    .values({
      account_id: ticket.accountId,
      ticket_id: ticket.id,
      ticket_number: ticket.ticketNumber,
      target: b.target,
      label_id: b.labelId,
      sla_minutes: b.slaMinutes,
      waited_from: b.startedAt,
      due_at: b.dueAt,
      breached_at: now,
      assignee: ticket.assignee,
      department_id: ticket.departmentId,
      alerted: alerted ? 1 : 0,
    })
    .onConflict((oc) => oc.columns(['ticket_id', 'target', 'waited_from']).doNothing())
    .executeTakeFirst();
  // A domain event (no socket event) for what keeps count of breaches, such as the reports' facts.
  if (Number(r.numInsertedOrUpdatedRows ?? 0) > 0)
    await appendEvent(trx, { accountId: ticket.accountId, type: SLA_BREACHED, payload: { id: ticket.id } });
}

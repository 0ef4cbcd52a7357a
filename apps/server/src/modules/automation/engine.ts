import {
  AUTOMATION_ACTION_NAMES,
  AUTOMATION_MAX_CHAIN,
  AUTOMATION_MAX_RETRIGGER,
  AUTOMATION_STRINGS,
  AUTOMATION_WEBHOOK_EVENT,
  type AutomationAction,
  type AutomationEvent,
  fillReplyVariables,
  LIVECHAT_QUEUED,
  type LiveChatQueued,
  type MacroAction,
  replyValues,
  type WebhookBody,
  WORKSPACE_CHANNEL,
} from '@parley/contracts';
import { AppError } from '../../platform/http/errors.js';
import { eventsAppendedIn, type Listener, type StoredEvent, type Trx } from '../../platform/outbox/index.js';
import { queueDelivery } from '../integrations/index.js';
import { announceQueue } from '../livechat/index.js';
import { addTicketNoteIn, type Conversations } from '../messages/index.js';
import { notifyUsers } from '../notifications/index.js';
import { applyTicketAction, assigneesOf, labelsOf, replyBlocked, type TicketState } from '../replies/index.js';
import { type BusinessSchedule, SLA_BREACHED, SLA_WARNED, scheduleFor } from '../sla/index.js';
import {
  type Actor,
  assignTicketAutomaticallyIn,
  changeTicketIn,
  departmentPlan,
  TICKET_RATED,
  TICKET_STATUS_CHANGED,
  type TicketRated,
  type TicketStatusChanged,
} from '../tickets/index.js';
import { RULE_COLUMNS, toRule } from './automation.queries.js';
import { checkRule } from './commands/saveRule.js';
import { matchRule, type RuleSubject } from './conditions.js';

/** The relay events a rule can wait for, and the rule event each one is. */
const TRIGGERS: Record<string, AutomationEvent> = {
  'ticket.created': 'ticket_created',
  'message.created': 'customer_message',
  [TICKET_STATUS_CHANGED]: 'status_changed',
  [SLA_WARNED]: 'sla_warning',
  [SLA_BREACHED]: 'sla_breach',
  [TICKET_RATED]: 'csat_received',
  [LIVECHAT_QUEUED]: 'livechat_queued',
};

type Payload = { id?: unknown; ticketId?: unknown; fromCustomer?: unknown; message?: unknown; channel?: unknown };

const ticketIdOf = (e: StoredEvent): number | null => {
  const p = e.payload as Payload;
  const id = e.type === 'message.created' ? p.ticketId : p.id;
  return Number.isInteger(id) ? (id as number) : null;
};

export type RuleTicket = NonNullable<Awaited<ReturnType<typeof readTicket>>>;

/** The columns of a ticket rules look at. */
export const RULE_TICKET_COLUMNS = [
  'id',
  'ticket_number',
  'title',
  'name',
  'email',
  'phone',
  'channel',
  'closed',
  'label',
  'assignee',
  'priority',
  'department_id',
  'updated_at',
] as const;

/** The ticket as rules see it. */
export async function readTicket(trx: Trx, accountId: number, id: number) {
  return trx
    .selectFrom('tickets')
    .select(RULE_TICKET_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Business hours per department, read once per run of the listener or a dry run. */
export function scheduleCache(trx: Trx, accountId: number) {
  const seen = new Map<number, Promise<BusinessSchedule | null>>();
  return (departmentId: number | null) => {
    const key = departmentId ?? 0;
    if (!seen.has(key)) seen.set(key, scheduleFor(trx, accountId, departmentId));
    return seen.get(key)!;
  };
}

/** The subject of a rule's conditions: the ticket now, and what the event brought. */
export async function subjectOf(
  t: RuleTicket,
  o: { text: string | null; rating: number | null; status?: number | null; at: number; needsHours: boolean },
  hours: ReturnType<typeof scheduleCache>,
): Promise<RuleSubject> {
  const departmentId = t.department_id === null ? null : Number(t.department_id);
  return {
    channel: t.channel,
    department_id: departmentId,
    label: labelsOf(t.label),
    priority: t.priority,
    closed: o.status ?? Number(t.closed),
    title: t.title,
    name: t.name,
    email: t.email,
    phone: t.phone,
    text: o.text,
    rating: o.rating,
    page: '',
    at: o.at,
    schedule: o.needsHours ? await hours(departmentId) : null,
  };
}

/** The server acting for a rule: ticket changes say "Automation ..." and are audited as the server's. */
const AUTOMATION_ACTOR = (accountId: number): Actor => ({
  accountId,
  userId: null,
  username: 'server',
  name: 'Automation',
});

/**
 * Applies a rule's actions to a ticket in order, through the ticket's, the messages' and the notifications'
 * own commands (the macros' code for the actions macros have). Replies and notes go out in the name of the
 * admin who last saved the rule. Answers what each action did, in words.
 */
async function applyActions(
  trx: Trx,
  conversations: Conversations,
  rule: { id: number; name: string; author_id: number; actions: AutomationAction[] },
  accountId: number,
  t: RuleTicket,
  event: { id: number; trigger: string; at: number },
): Promise<{ did: string[]; changed: boolean }> {
  const eventId = event.id;
  const actor = AUTOMATION_ACTOR(accountId);
  const author = await trx
    .selectFrom('users')
    .select(['username', 'name'])
    .where('account_id', '=', accountId)
    .where('id', '=', rule.author_id)
    .where('active', '=', 1)
    .executeTakeFirst();
  const by = {
    actor,
    sender: author?.username ?? 'server',
    senderName: author ? author.name || author.username : 'Automation',
  };
  const id = Number(t.id);
  const ticketNumber = Number(t.ticket_number);
  const now: TicketState = {
    closed: Number(t.closed),
    label: labelsOf(t.label),
    assignee: assigneesOf(t.assignee),
    priority: t.priority,
  };
  let departmentId = t.department_id === null ? null : Number(t.department_id);
  const values = replyValues(
    { ticket_number: ticketNumber, title: t.title, name: t.name, email: t.email },
    { name: by.senderName, username: by.sender },
  );
  const did: string[] = [];
  let changed = false;
  const macro = async (a: MacroAction) => {
    const done = await applyTicketAction(trx, conversations, by, t, a, now, values);
    if (done === null) did.push(`${AUTOMATION_ACTION_NAMES[a.type]}: no change`);
    else {
      changed = true;
      did.push(AUTOMATION_ACTION_NAMES[a.type]);
    }
  };
  for (const a of rule.actions) {
    switch (a.type) {
      case 'reply':
      case 'canned_reply': {
        let text = a.type === 'reply' ? a.text : null;
        if (a.type === 'canned_reply') {
          // Checked when the rule was saved and before this run: a shared canned reply of the account.
          const canned = await trx
            .selectFrom('canned_replies')
            .select('body')
            .where('account_id', '=', accountId)
            .where('owner_id', '=', 0)
            .where('id', '=', a.reply_id)
            .executeTakeFirst();
          text = canned?.body ?? null;
        }
        if (text === null) break;
        if (await replyBlocked(trx, accountId, { id, channel: t.channel, email: t.email })) {
          did.push(AUTOMATION_STRINGS.replyNotSent(ticketNumber));
          break;
        }
        await macro({ type: 'reply', text });
        break;
      }
      case 'department': {
        if (departmentId === a.department_id) {
          did.push(`${AUTOMATION_ACTION_NAMES.department}: no change`);
          break;
        }
        await changeTicketIn(trx, conversations, actor, id, departmentPlan(actor, a.department_id));
        departmentId = a.department_id;
        changed = true;
        did.push(AUTOMATION_ACTION_NAMES.department);
        break;
      }
      case 'auto_assign': {
        const chosen = await assignTicketAutomaticallyIn(trx, conversations, accountId, id, a.strategy);
        if (chosen === null) did.push(`${AUTOMATION_ACTION_NAMES.auto_assign}: ${AUTOMATION_STRINGS.noAgentFree}`);
        else {
          now.assignee = [chosen];
          changed = true;
          did.push(`${AUTOMATION_ACTION_NAMES.auto_assign}: ${chosen}`);
        }
        break;
      }
      case 'note':
        await addTicketNoteIn(trx, conversations, {
          accountId,
          ticket: { id, accountId, channel: t.channel },
          sender: by.sender,
          senderName: by.senderName,
          text: fillReplyVariables(a.text, values),
        });
        changed = true;
        did.push(AUTOMATION_ACTION_NAMES.note);
        break;
      case 'notify': {
        const users = await trx
          .selectFrom('users')
          .select('id')
          .where('account_id', '=', accountId)
          .where('active', '=', 1)
          .where(
            (eb) => eb.fn('lower', ['username']),
            'in',
            a.users.map((u) => u.trim().toLowerCase()),
          )
          .execute();
        const sent = await notifyUsers(trx, {
          accountId,
          userIds: users.map((u) => Number(u.id)),
          category: 'system',
          type: 'others',
          channel: 'ticket',
          title: `${rule.name}: #${ticketNumber}`,
          body: fillReplyVariables(a.text, values),
          ticketId: id,
          ticketNumber,
          source: `automation:${rule.id}:${eventId}`,
        });
        if (sent.length > 0) changed = true;
        did.push(`${AUTOMATION_ACTION_NAMES.notify}: ${sent.length}`);
        break;
      }
      case 'notify_department': {
        const sent = await notifyUsers(trx, {
          accountId,
          userIds: await departmentMembers(trx, accountId, a.department_id),
          category: 'system',
          type: 'others',
          channel: 'ticket',
          title: `${rule.name}: #${ticketNumber}`,
          body: fillReplyVariables(a.text, values),
          ticketId: id,
          ticketNumber,
          source: `automation:${rule.id}:${eventId}`,
        });
        if (sent.length > 0) changed = true;
        did.push(`${AUTOMATION_ACTION_NAMES.notify_department}: ${sent.length}`);
        break;
      }
      case 'webhook': {
        did.push(
          await sendRuleWebhook(trx, accountId, a.webhook_id, {
            event: AUTOMATION_WEBHOOK_EVENT,
            eventId,
            accountId,
            createdAt: event.at,
            data: {
              rule: { id: rule.id, name: rule.name },
              trigger: event.trigger,
              ticket: {
                id,
                ticket_number: ticketNumber,
                title: t.title,
                channel: t.channel,
                status: now.closed,
                priority: now.priority,
                assignee: now.assignee,
                labels: now.label,
              },
            },
          }),
        );
        break;
      }
      default:
        await macro(a);
    }
  }
  return { did, changed };
}

/** The active users of a department (users list their departments as JSON ids). */
/**
 * A rule's webhook action: a delivery like a subscription's (signed, retried, in the webhook's log). It changes
 * no ticket or chat, so it never triggers a rule by itself. Answers what the run log says it did.
 */
async function sendRuleWebhook(trx: Trx, accountId: number, webhookId: number, body: WebhookBody): Promise<string> {
  const hook = await trx
    .selectFrom('webhooks')
    .select('id')
    .where('account_id', '=', accountId)
    .where('id', '=', webhookId)
    .where('active', '=', 1)
    .executeTakeFirst();
  if (!hook) return `${AUTOMATION_ACTION_NAMES.webhook}: ${AUTOMATION_STRINGS.webhookOff}`;
  await queueDelivery(trx, {
    accountId,
    webhookId,
    event: AUTOMATION_WEBHOOK_EVENT,
    body: JSON.stringify(body),
    redeliveryOf: null,
  });
  return AUTOMATION_ACTION_NAMES.webhook;
}

async function departmentMembers(trx: Trx, accountId: number, departmentId: number): Promise<number[]> {
  const users = await trx
    .selectFrom('users')
    .select(['id', 'departments'])
    .where('account_id', '=', accountId)
    .where('active', '=', 1)
    .execute();
  return users
    .filter((u) => {
      try {
        const ids = JSON.parse(u.departments) as unknown;
        return Array.isArray(ids) && ids.some((d) => Number(d) === departmentId);
      } catch {
        return false;
      }
    })
    .map((u) => Number(u.id));
}

/** The columns of a live chat rules look at. */
export const RULE_CHAT_COLUMNS = [
  'id',
  'state',
  'name',
  'email',
  'phone',
  'message',
  'department_id',
  'page',
  'queued_at',
] as const;
export type RuleChat = {
  id: number | string;
  state: string;
  name: string;
  email: string;
  phone: string;
  message: string;
  department_id: number | string | null;
  page: string;
  queued_at: number | string;
};

/**
 * The subject of a rule's conditions on "Live chat queued": the chat as it is now. It has no ticket, so
 * the ticket fields are empty (the rule was refused when saved if a condition read them); the text is the
 * visitor's first message, the customer the visitor's form, business hours those of the chat's department
 * (else the account's) when the chat was queued.
 */
export async function chatSubject(
  c: RuleChat,
  needsHours: boolean,
  hours: ReturnType<typeof scheduleCache>,
): Promise<RuleSubject> {
  const departmentId = c.department_id === null ? null : Number(c.department_id);
  return {
    channel: 'LIVECHAT',
    department_id: departmentId,
    label: [],
    priority: '',
    closed: 0,
    title: '',
    name: c.name,
    email: c.email,
    phone: c.phone,
    text: c.message,
    rating: null,
    page: c.page,
    at: Number(c.queued_at),
    schedule: needsHours ? await hours(departmentId) : null,
  };
}

/**
 * Applies a "Live chat queued" rule's actions to the chat, in order: notifications (to users or a
 * department's members, once per rule and event), a signed webhook delivery with the chat, and moving the
 * chat to a department while it still waits (its ticket then joins that department when an agent accepts).
 */
async function applyChatActions(
  trx: Trx,
  rule: { id: number; name: string; author_id: number; actions: AutomationAction[] },
  accountId: number,
  chat: RuleChat,
  event: { id: number; trigger: string; at: number },
): Promise<{ did: string[]; changed: boolean }> {
  const chatId = Number(chat.id);
  const values = replyValues(
    { ticket_number: 0, title: '', name: chat.name, email: chat.email },
    { name: 'Automation', username: 'server' },
  );
  let departmentId = chat.department_id === null ? null : Number(chat.department_id);
  const did: string[] = [];
  let changed = false;
  const notify = async (name: string, userIds: number[], text: string) => {
    const sent = await notifyUsers(trx, {
      accountId,
      userIds,
      category: 'system',
      type: 'others',
      channel: 'livechat',
      title: `${rule.name}: ${chat.name}`,
      body: fillReplyVariables(text, values),
      source: `automation:${rule.id}:${event.id}`,
    });
    if (sent.length > 0) changed = true;
    did.push(`${name}: ${sent.length}`);
  };
  for (const a of rule.actions) {
    switch (a.type) {
      case 'notify': {
        const users = await trx
          .selectFrom('users')
          .select('id')
          .where('account_id', '=', accountId)
          .where('active', '=', 1)
          .where(
            (eb) => eb.fn('lower', ['username']),
            'in',
            a.users.map((u) => u.trim().toLowerCase()),
          )
          .execute();
        await notify(
          AUTOMATION_ACTION_NAMES.notify,
          users.map((u) => Number(u.id)),
          a.text,
        );
        break;
      }
      case 'notify_department':
        await notify(
          AUTOMATION_ACTION_NAMES.notify_department,
          await departmentMembers(trx, accountId, a.department_id),
          a.text,
        );
        break;
      case 'department': {
        if (departmentId === a.department_id) {
          did.push(`${AUTOMATION_ACTION_NAMES.department}: no change`);
          break;
        }
        const moved = await trx
          .updateTable('livechats')
          .set({ department_id: a.department_id })
          .where('account_id', '=', accountId)
          .where('id', '=', chatId)
          .where('state', '=', 'queued')
          .returning('id')
          .executeTakeFirst();
        if (!moved) {
          did.push(`${AUTOMATION_ACTION_NAMES.department}: ${AUTOMATION_STRINGS.chatTaken}`);
          break;
        }
        departmentId = a.department_id;
        await announceQueue(trx, accountId);
        changed = true;
        did.push(AUTOMATION_ACTION_NAMES.department);
        break;
      }
      case 'webhook': {
        did.push(
          await sendRuleWebhook(trx, accountId, a.webhook_id, {
            event: AUTOMATION_WEBHOOK_EVENT,
            eventId: event.id,
            accountId,
            createdAt: event.at,
            data: {
              rule: { id: rule.id, name: rule.name },
              trigger: event.trigger,
              livechat: {
                id: chatId,
                name: chat.name,
                email: chat.email,
                phone: chat.phone,
                message: chat.message,
                page: chat.page,
                department_id: departmentId,
                queued_at: Number(chat.queued_at),
              },
            },
          }),
        );
        break;
      }
      default:
        // Refused when the rule is saved (and checked again before each run): nothing about a ticket runs here.
        did.push(AUTOMATION_STRINGS.actionNotFor(AUTOMATION_ACTION_NAMES[a.type], 'Live chat queued'));
    }
  }
  return { did, changed };
}

const chainOf = (json: string | undefined): number[] => {
  if (!json) return [];
  try {
    const v = JSON.parse(json) as unknown;
    return Array.isArray(v) ? v.filter((x): x is number => typeof x === 'number') : [];
  } catch {
    return [];
  }
};

/** What one rule is about on one event: the subject of its conditions, where its run is logged, its actions. */
interface RuleTarget {
  subject: RuleSubject;
  ticketId: number;
  ticketNumber: number;
  livechatId: number | null;
  apply: () => Promise<{ did: string[]; changed: boolean }>;
}

/**
 * The rules of the account, run on the events they wait for: a transactional listener, so each event runs
 * each rule at most once (the relay's receipt, and the run log's unique rule and event backing it across
 * nodes). Rules run in the account's order, each on the ticket (or, on "Live chat queued", the chat) as the
 * rules before it left it; a rule whose conditions hold is logged with what matched and what it did. The
 * events a rule's actions append carry the chain of rules that caused them (`automation_chains`); a rule
 * re-triggered by its own change more than `AUTOMATION_MAX_RETRIGGER` times in one chain, or a chain longer
 * than `AUTOMATION_MAX_CHAIN`, is stopped and logged with the reason.
 */
export const automationListener = (conversations: Conversations): Listener => ({
  name: 'automation.rules',
  kind: 'transactional',
  events: Object.keys(TRIGGERS),
  wants(e) {
    const p = e.payload as Payload;
    if (e.type === 'message.created') return p.fromCustomer === true;
    if (e.type === 'ticket.created') return p.channel !== WORKSPACE_CHANNEL;
    return true;
  },
  async handle(e: StoredEvent, trx: Trx) {
    const trigger = TRIGGERS[e.type];
    if (!trigger) return;
    const chatId = trigger === 'livechat_queued' ? Number((e.payload as LiveChatQueued).livechat_id) : null;
    const ticketId = trigger === 'livechat_queued' ? null : ticketIdOf(e);
    if (ticketId === null && !(chatId !== null && Number.isInteger(chatId))) return;
    const rules = (
      await trx
        .selectFrom('automation_rules')
        .select(RULE_COLUMNS)
        .where('account_id', '=', e.accountId)
        .where('event', '=', trigger)
        .where('enabled', '=', 1)
        .orderBy('position')
        .orderBy('id')
        .execute()
    ).map(toRule);
    if (rules.length === 0) return;
    const chain = chainOf(
      (
        await trx
          .selectFrom('automation_chains')
          .select('chain')
          .where('account_id', '=', e.accountId)
          .where('event_id', '=', e.id)
          .executeTakeFirst()
      )?.chain,
    );
    const hours = scheduleCache(trx, e.accountId);
    const p = e.payload as Payload;
    const text = trigger === 'customer_message' && typeof p.message === 'string' ? p.message : null;
    const rating = trigger === 'csat_received' ? Number((e.payload as TicketRated).rating) : null;
    // On a status change the status condition reads the status that change set, not the ticket's now (a rule
    // before this one may have moved it on: that is another change, with its own event).
    const status = trigger === 'status_changed' ? Number((e.payload as TicketStatusChanged).to) : null;
    const ev = { id: e.id, trigger, at: e.createdAt };
    /** The ticket or chat as the rules before this one left it; null when it is gone (nothing more runs). */
    const targetOf = async (rule: (typeof rules)[number]): Promise<RuleTarget | null> => {
      const needsHours = rule.conditions.some((c) => c.field === 'business_hours');
      if (chatId !== null) {
        const c = await trx
          .selectFrom('livechats')
          .select(RULE_CHAT_COLUMNS)
          .where('account_id', '=', e.accountId)
          .where('id', '=', chatId)
          .executeTakeFirst();
        if (!c) return null;
        return {
          subject: await chatSubject(c, needsHours, hours),
          ticketId: 0,
          ticketNumber: 0,
          livechatId: chatId,
          apply: () => applyChatActions(trx, rule, e.accountId, c, ev),
        };
      }
      const t = await readTicket(trx, e.accountId, ticketId!);
      if (!t || t.channel === WORKSPACE_CHANNEL) return null;
      return {
        subject: await subjectOf(t, { text, rating, status, at: e.createdAt, needsHours }, hours),
        ticketId: ticketId!,
        ticketNumber: Number(t.ticket_number),
        livechatId: null,
        apply: () => applyActions(trx, conversations, rule, e.accountId, t, ev),
      };
    };
    for (const rule of rules) {
      const target = await targetOf(rule);
      if (!target) return;
      const m = matchRule(rule.conditions, target.subject);
      if (!m.ok) continue;
      // The run row is taken first: a second delivery of the event (another node, a repeat) finds it and
      // does nothing.
      const run = await trx
        .insertInto('automation_runs')
        .values({
          account_id: e.accountId,
          rule_id: rule.id,
          event_id: e.id,
          event: trigger,
          ticket_id: target.ticketId,
          ticket_number: target.ticketNumber,
          livechat_id: target.livechatId,
          outcome: 'applied',
          matched: JSON.stringify(m.matched),
          did: '[]',
          reason: '',
          created_at: Date.now(),
        })
        .onConflict((oc) => oc.columns(['rule_id', 'event_id']).doNothing())
        .returning('id')
        .executeTakeFirst();
      if (!run) continue;
      const finish = (set: { outcome: string; did?: string[]; reason?: string }) =>
        trx
          .updateTable('automation_runs')
          .set({ outcome: set.outcome, did: JSON.stringify(set.did ?? []), reason: set.reason ?? '' })
          .where('id', '=', Number(run.id))
          .execute();
      if (chain.filter((r) => r === rule.id).length > AUTOMATION_MAX_RETRIGGER) {
        await finish({ outcome: 'stopped', reason: AUTOMATION_STRINGS.loopStopped(rule.name) });
        continue;
      }
      if (chain.length >= AUTOMATION_MAX_CHAIN) {
        await finish({ outcome: 'stopped', reason: AUTOMATION_STRINGS.chainStopped });
        continue;
      }
      // What the rule names may have gone since it was saved (a label removed, a user deactivated): the run
      // stops with the reason instead of failing the event.
      try {
        await checkRule(trx, e.accountId, { ...rule, enabled: true });
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        await finish({ outcome: 'stopped', reason: err.message });
        continue;
      }
      const before = eventsAppendedIn(trx).length;
      const { did, changed } = await target.apply();
      const caused = eventsAppendedIn(trx).slice(before);
      if (caused.length > 0)
        await trx
          .insertInto('automation_chains')
          .values(
            caused.map((c) => ({
              event_id: c.id,
              account_id: e.accountId,
              chain: JSON.stringify([...chain, rule.id]),
              created_at: Date.now(),
            })),
          )
          .onConflict((oc) => oc.column('event_id').doNothing())
          .execute();
      await finish({ outcome: changed ? 'applied' : 'no_change', did });
    }
  },
});

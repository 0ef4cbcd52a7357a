import {
  AUTOMATION_DRY_RUN_TICKETS,
  type AutomationDryRunAnswer,
  type AutomationRuleParsed,
  SENDERS,
  WORKSPACE_CHANNEL,
} from '@parley/contracts';
import type { DB } from '../../platform/db/db.js';
import type { Trx } from '../../platform/outbox/index.js';
import { checkRule } from './commands/saveRule.js';
import { matchRule } from './conditions.js';
import { chatSubject, RULE_CHAT_COLUMNS, RULE_TICKET_COLUMNS, scheduleCache, subjectOf } from './engine.js';

/**
 * Which of the account's most recently active tickets a rule (saved or not) would have matched, newest first:
 * its conditions against each ticket as it is now, with the ticket's latest customer message as the text of
 * "Message received from a customer", its latest rating for "CSAT rating received", and the time of its last
 * activity for business hours. On "Live chat queued" it checks the account's most recently queued live chats
 * instead, each as it is now, at the time it was queued. Reads only; writes nothing.
 */
export async function dryRun(
  db: DB,
  accountId: number,
  rule: AutomationRuleParsed,
): Promise<AutomationDryRunAnswer['data']> {
  await checkRule(db, accountId, rule);
  // One read-only transaction: the business-hours cache and the reads share it.
  return db.transaction().execute(async (trx: Trx) => {
    const hours = scheduleCache(trx, accountId);
    const needsHours = rule.conditions.some((c) => c.field === 'business_hours');
    if (rule.event === 'livechat_queued') {
      const chats = await trx
        .selectFrom('livechats')
        .select(RULE_CHAT_COLUMNS)
        .where('account_id', '=', accountId)
        .where('state', '!=', 'offline')
        .orderBy('queued_at', 'desc')
        .orderBy('id', 'desc')
        .limit(AUTOMATION_DRY_RUN_TICKETS)
        .execute();
      const out: AutomationDryRunAnswer['data']['chats'] = [];
      for (const c of chats) {
        const m = matchRule(rule.conditions, await chatSubject(c, needsHours, hours));
        if (m.ok)
          out.push({
            id: Number(c.id),
            name: c.name,
            message: c.message.slice(0, 200),
            queued_at: Number(c.queued_at),
            matched: m.matched,
          });
      }
      return { checked: chats.length, tickets: [], chats: out };
    }
    const tickets = await trx
      .selectFrom('tickets')
      .select(RULE_TICKET_COLUMNS)
      .where('account_id', '=', accountId)
      .where('channel', '!=', WORKSPACE_CHANNEL)
      .orderBy('updated_at', 'desc')
      .orderBy('id', 'desc')
      .limit(AUTOMATION_DRY_RUN_TICKETS)
      .execute();
    const ids = tickets.map((t) => Number(t.id));
    const texts = new Map<number, string>();
    if (rule.event === 'customer_message' && ids.length > 0) {
      const users = trx.selectFrom('users').select('username').where('account_id', '=', accountId);
      const latest = trx
        .selectFrom('messages')
        .select((eb) => eb.fn.max('id').as('id'))
        .where('account_id', '=', accountId)
        .where('ticket_id', 'in', ids)
        .where('deleted_at', 'is', null)
        .where('type', '!=', 'system')
        .where('sender', 'not in', [SENDERS.server, SENDERS.translatebot])
        .where('sender', 'not in', users)
        .groupBy('ticket_id');
      const rows = await trx
        .selectFrom('messages')
        .select(['ticket_id', 'message'])
        .where('account_id', '=', accountId)
        .where('id', 'in', latest)
        .execute();
      for (const r of rows) texts.set(Number(r.ticket_id), r.message);
    }
    const ratings = new Map<number, number>();
    if (rule.event === 'csat_received' && ids.length > 0) {
      const rows = await trx
        .selectFrom('ticket_surveys')
        .select(['ticket_id', 'rating'])
        .where('account_id', '=', accountId)
        .where('ticket_id', 'in', ids)
        .where('rating', 'is not', null)
        .orderBy('answered_at')
        .execute();
      for (const r of rows) ratings.set(Number(r.ticket_id), Number(r.rating));
    }
    const out: AutomationDryRunAnswer['data']['tickets'] = [];
    for (const t of tickets) {
      const id = Number(t.id);
      // A customer message or a rating is what those events are about: a ticket without one would not fire.
      if (rule.event === 'customer_message' && !texts.has(id)) continue;
      if (rule.event === 'csat_received' && !ratings.has(id)) continue;
      const subject = await subjectOf(
        t,
        { text: texts.get(id) ?? null, rating: ratings.get(id) ?? null, at: Number(t.updated_at), needsHours },
        hours,
      );
      const m = matchRule(rule.conditions, subject);
      if (m.ok)
        out.push({
          id,
          ticket_number: Number(t.ticket_number),
          title: t.title,
          channel: t.channel,
          matched: m.matched,
        });
    }
    return { checked: tickets.length, tickets: out, chats: [] };
  });
}

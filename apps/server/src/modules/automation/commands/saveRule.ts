import {
  AUTOMATION_ACTION_NAMES,
  AUTOMATION_CONDITION_NAMES,
  AUTOMATION_EVENT_ACTIONS,
  AUTOMATION_EVENT_CONDITIONS,
  AUTOMATION_EVENT_NAMES,
  AUTOMATION_STRINGS,
  type AutomationRule,
  type AutomationRuleParsed,
  type MacroAction,
} from '@parley/contracts';
import type { AuthContext } from '../../../platform/auth/sessions.js';
import type { DB } from '../../../platform/db/db.js';
import { badRequest, notFound } from '../../../platform/http/errors.js';
import { appendEvent, runCommand, type Trx } from '../../../platform/outbox/index.js';
import { checkMacroActions } from '../../replies/index.js';
import { RULE_COLUMNS, toRule } from '../automation.queries.js';

/**
 * Every condition and action must apply to the rule's event (`AUTOMATION_EVENT_CONDITIONS` / `_ACTIONS`: a
 * rating only on "CSAT rating received", on "Live chat queued" only what a chat without a ticket has), and
 * everything a rule names must exist: its labels, statuses and users (the macros' own check, so both refuse
 * alike), its departments, shared canned replies and webhooks. The first problem is a 400 naming it.
 */
export async function checkRule(trx: Trx | DB, accountId: number, rule: AutomationRuleParsed): Promise<void> {
  const named: MacroAction[] = [];
  const departments = new Set<number>();
  const canned = new Set<number>();
  const webhooks = new Set<number>();
  const eventName = AUTOMATION_EVENT_NAMES[rule.event];
  for (const c of rule.conditions) {
    if (!AUTOMATION_EVENT_CONDITIONS[rule.event].includes(c.field))
      throw badRequest(
        c.field === 'rating'
          ? AUTOMATION_STRINGS.ratingOnlyOnCsat
          : AUTOMATION_STRINGS.conditionNotFor(AUTOMATION_CONDITION_NAMES[c.field], eventName),
      );
    if (c.field === 'labels') named.push({ type: 'add_labels', labels: c.labels });
    if (c.field === 'status') for (const status of c.in) named.push({ type: 'status', status });
    if (c.field === 'department') for (const d of c.in) if (d !== 0) departments.add(d);
  }
  for (const a of rule.actions) {
    if (!AUTOMATION_EVENT_ACTIONS[rule.event].includes(a.type))
      throw badRequest(AUTOMATION_STRINGS.actionNotFor(AUTOMATION_ACTION_NAMES[a.type], eventName));
    if (a.type === 'department' || a.type === 'notify_department') departments.add(a.department_id);
    else if (a.type === 'canned_reply') canned.add(a.reply_id);
    else if (a.type === 'notify') named.push({ type: 'assignee', assignee: a.users });
    else if (a.type === 'webhook') webhooks.add(a.webhook_id);
    else if (a.type !== 'auto_assign' && a.type !== 'note') named.push(a);
  }
  await checkMacroActions(trx, accountId, named);
  if (departments.size > 0) {
    const found = await trx
      .selectFrom('departments')
      .select('id')
      .where('account_id', '=', accountId)
      .where('id', 'in', [...departments])
      .execute();
    const ids = new Set(found.map((r) => Number(r.id)));
    for (const d of departments) if (!ids.has(d)) throw badRequest(AUTOMATION_STRINGS.unknownDepartment(d));
  }
  if (canned.size > 0) {
    const found = await trx
      .selectFrom('canned_replies')
      .select('id')
      .where('account_id', '=', accountId)
      .where('owner_id', '=', 0)
      .where('id', 'in', [...canned])
      .execute();
    const ids = new Set(found.map((r) => Number(r.id)));
    for (const c of canned) if (!ids.has(c)) throw badRequest(AUTOMATION_STRINGS.unknownCannedReply(c));
  }
  if (webhooks.size > 0) {
    const found = await trx
      .selectFrom('webhooks')
      .select('id')
      .where('account_id', '=', accountId)
      .where('id', 'in', [...webhooks])
      .execute();
    const ids = new Set(found.map((r) => Number(r.id)));
    for (const w of webhooks) if (!ids.has(w)) throw badRequest(AUTOMATION_STRINGS.unknownWebhook(w));
  }
}

const stripAuthor = ({ author_id: _a, ...rule }: ReturnType<typeof toRule>): AutomationRule => rule;

const ruleValues = (auth: AuthContext, input: AutomationRuleParsed) => ({
  name: input.name,
  event: input.event,
  enabled: input.enabled ? 1 : 0,
  conditions: JSON.stringify(input.conditions),
  actions: JSON.stringify(input.actions),
  author_id: auth.userId,
  updated_at: Date.now(),
});

/** A new rule of the account (admins), last in the running order. */
export async function createRule(db: DB, auth: AuthContext, input: AutomationRuleParsed): Promise<AutomationRule> {
  return runCommand(db, async (trx) => {
    await checkRule(trx, auth.accountId, input);
    const last = await trx
      .selectFrom('automation_rules')
      .select((eb) => eb.fn.max('position').as('p'))
      .where('account_id', '=', auth.accountId)
      .executeTakeFirst();
    const values = ruleValues(auth, input);
    const row = await trx
      .insertInto('automation_rules')
      .values({
        account_id: auth.accountId,
        position: Number(last?.p ?? 0) + 1,
        created_at: values.updated_at,
        ...values,
      })
      .returning(RULE_COLUMNS)
      .executeTakeFirstOrThrow();
    const rule = stripAuthor(toRule(row));
    await appendEvent(trx, {
      accountId: auth.accountId,
      type: 'automation_rule.created',
      payload: { id: rule.id, by: auth.userId },
    });
    return rule;
  });
}

/** Changes a rule as a whole (switching it off is `enabled: false`); its place in the order stays. */
export async function updateRule(
  db: DB,
  auth: AuthContext,
  id: number,
  input: AutomationRuleParsed,
): Promise<AutomationRule> {
  return runCommand(db, async (trx) => {
    await checkRule(trx, auth.accountId, input);
    const row = await trx
      .updateTable('automation_rules')
      .set(ruleValues(auth, input))
      .where('account_id', '=', auth.accountId)
      .where('id', '=', id)
      .returning(RULE_COLUMNS)
      .executeTakeFirst();
    if (!row) throw notFound(AUTOMATION_STRINGS.ruleNotFound);
    await appendEvent(trx, {
      accountId: auth.accountId,
      type: 'automation_rule.updated',
      payload: { id, by: auth.userId },
    });
    return stripAuthor(toRule(row));
  });
}

/** Deletes a rule and its run log. */
export async function deleteRule(db: DB, auth: AuthContext, id: number): Promise<void> {
  await runCommand(db, async (trx) => {
    await trx
      .deleteFrom('automation_runs')
      .where('account_id', '=', auth.accountId)
      .where('rule_id', '=', id)
      .execute();
    const done = await trx
      .deleteFrom('automation_rules')
      .where('account_id', '=', auth.accountId)
      .where('id', '=', id)
      .returning('id')
      .executeTakeFirst();
    if (!done) throw notFound(AUTOMATION_STRINGS.ruleNotFound);
    await appendEvent(trx, {
      accountId: auth.accountId,
      type: 'automation_rule.deleted',
      payload: { id, by: auth.userId },
    });
  });
}

/** The new running order: every rule of the account exactly once (else 400, nothing changed). */
export async function reorderRules(db: DB, auth: AuthContext, ids: number[]): Promise<void> {
  await runCommand(db, async (trx) => {
    const rows = await trx
      .selectFrom('automation_rules')
      .select('id')
      .where('account_id', '=', auth.accountId)
      .execute();
    const have = new Set(rows.map((r) => Number(r.id)));
    if (new Set(ids).size !== ids.length || ids.length !== have.size || !ids.every((id) => have.has(id)))
      throw badRequest(AUTOMATION_STRINGS.badOrder);
    for (const [i, id] of ids.entries())
      await trx
        .updateTable('automation_rules')
        .set({ position: i + 1 })
        .where('account_id', '=', auth.accountId)
        .where('id', '=', id)
        .execute();
    await appendEvent(trx, {
      accountId: auth.accountId,
      type: 'automation_rule.reordered',
      payload: { ids, by: auth.userId },
    });
  });
}

import {
  AutomationAction,
  AutomationCondition,
  type AutomationEvent,
  type AutomationRule,
  type AutomationRun,
} from '@parley/contracts';
import type { DB } from '../../platform/db/db.js';
import type { Trx } from '../../platform/outbox/index.js';

export interface RuleRow {
  id: number | string;
  name: string;
  position: number | string;
  enabled: number | string;
  event: string;
  conditions: string;
  actions: string;
  updated_at: number | string;
  author_id: number | string;
}

export const RULE_COLUMNS = [
  'id',
  'name',
  'position',
  'enabled',
  'event',
  'conditions',
  'actions',
  'updated_at',
  'author_id',
] as const;

/** A stored JSON list read through its schema: an entry that no longer parses is dropped, not trusted. */
function listOf<T>(json: string, one: { safeParse(v: unknown): { success: true; data: T } | { success: false } }): T[] {
  try {
    const v = JSON.parse(json) as unknown;
    if (!Array.isArray(v)) return [];
    return v.flatMap((x) => {
      const r = one.safeParse(x);
      return r.success ? [r.data] : [];
    });
  } catch {
    return [];
  }
}

export const toRule = (r: RuleRow): AutomationRule & { author_id: number } => ({
  id: Number(r.id),
  name: r.name,
  position: Number(r.position),
  enabled: Number(r.enabled) === 1,
  event: r.event as AutomationEvent,
  conditions: listOf(r.conditions, AutomationCondition),
  actions: listOf(r.actions, AutomationAction),
  updated_at: Number(r.updated_at),
  author_id: Number(r.author_id),
});

/** The account's rules in their running order. */
export async function listRules(db: DB | Trx, accountId: number): Promise<AutomationRule[]> {
  const rows = await db
    .selectFrom('automation_rules')
    .select(RULE_COLUMNS)
    .where('account_id', '=', accountId)
    .orderBy('position')
    .orderBy('id')
    .execute();
  return rows.map((r) => {
    const { author_id: _a, ...rule } = toRule(r);
    return rule;
  });
}

const strings = (json: string): string[] => {
  try {
    const v = JSON.parse(json) as unknown;
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
};

/** The latest 100 runs of the account's rules (of one rule when given), newest first. */
export async function listRuns(db: DB, accountId: number, ruleId?: number): Promise<AutomationRun[]> {
  let q = db
    .selectFrom('automation_runs as r')
    .innerJoin('automation_rules as u', 'u.id', 'r.rule_id')
    .select([
      'r.id',
      'r.rule_id',
      'u.name as rule_name',
      'r.event',
      'r.ticket_id',
      'r.ticket_number',
      'r.livechat_id',
      'r.outcome',
      'r.matched',
      'r.did',
      'r.reason',
      'r.created_at',
    ])
    .where('r.account_id', '=', accountId)
    .where('u.account_id', '=', accountId);
  if (ruleId !== undefined) q = q.where('r.rule_id', '=', ruleId);
  const rows = await q.orderBy('r.id', 'desc').limit(100).execute();
  return rows.map((r) => ({
    id: Number(r.id),
    rule_id: Number(r.rule_id),
    rule_name: r.rule_name,
    event: r.event,
    ticket_id: Number(r.ticket_id),
    ticket_number: Number(r.ticket_number),
    livechat_id: r.livechat_id === null ? null : Number(r.livechat_id),
    outcome: r.outcome as AutomationRun['outcome'],
    matched: strings(r.matched),
    did: strings(r.did),
    reason: r.reason,
    created_at: Number(r.created_at),
  }));
}

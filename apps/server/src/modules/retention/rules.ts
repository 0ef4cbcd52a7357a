import {
  RETENTION_SAMPLE,
  RETENTION_STRINGS,
  type RetentionAction,
  type RetentionPreviewItem,
  type RetentionRule,
  type RetentionRuleInput,
  type RetentionRun,
  type RetentionTarget,
} from '@parley/contracts';
import type { z } from 'zod';
import type { AuthContext } from '../../platform/auth/sessions.js';
import type { DB } from '../../platform/db/db.js';
import { badRequest, notFound } from '../../platform/http/errors.js';
import { runCommand } from '../../platform/outbox/index.js';
import type { Task } from '../../platform/scheduler.js';
import { recordAudit } from '../audit/index.js';
import { eligible, RUN_CAP, type RuleSpec, runRule } from './purge.js';

type Input = z.output<typeof RetentionRuleInput>;
const DAY = 24 * 3600 * 1000;
/** Runs shown on the settings screen, newest first. */
export const RUNS_SHOWN = 20;

/** The combinations the schema cannot tell: a channel only where the data has one; the audit log deleted only. */
export function checkRule(input: Input): RuleSpec {
  if (input.target === 'audit_log' && input.action !== 'delete') throw badRequest(RETENTION_STRINGS.auditOnlyDelete);
  if (input.target === 'audit_log' && input.channel !== '') throw badRequest(RETENTION_STRINGS.channelNotForTarget);
  if (input.target === 'visitor_data' && input.channel !== '' && input.channel !== 'LIVECHAT')
    throw badRequest(RETENTION_STRINGS.visitorOnlyLivechat);
  return { target: input.target, action: input.action, days: input.days, channel: input.channel };
}

type Row = {
  id: number;
  target: string;
  action: string;
  days: number;
  channel: string;
  created_at: number;
  updated_at: number;
};
const toRule = (r: Row): RetentionRule => ({
  id: Number(r.id),
  target: r.target as RetentionTarget,
  action: r.action as RetentionAction,
  days: Number(r.days),
  channel: r.channel,
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});

const rulesOf = (db: DB, accountId: number) =>
  db
    .selectFrom('retention_rules')
    .select(['id', 'target', 'action', 'days', 'channel', 'created_at', 'updated_at'])
    .where('account_id', '=', accountId)
    .orderBy('id')
    .execute();

export async function listRules(db: DB, accountId: number): Promise<RetentionRule[]> {
  return (await rulesOf(db, accountId)).map(toRule);
}

export async function createRule(db: DB, auth: AuthContext, input: Input, now: number): Promise<RetentionRule> {
  const spec = checkRule(input);
  return runCommand(db, async (trx) => {
    const row = await trx
      .insertInto('retention_rules')
      .values({ account_id: auth.accountId, ...spec, created_by: auth.userId, created_at: now, updated_at: now })
      .returning(['id', 'target', 'action', 'days', 'channel', 'created_at', 'updated_at'])
      .executeTakeFirstOrThrow();
    await recordAudit(trx, {
      accountId: auth.accountId,
      userId: auth.userId,
      actor: auth.username,
      action: 'retention.rule_created',
      detail: { ruleId: Number(row.id), ...spec },
    });
    return toRule(row);
  });
}

export async function updateRule(
  db: DB,
  auth: AuthContext,
  id: number,
  input: Input,
  now: number,
): Promise<RetentionRule> {
  const spec = checkRule(input);
  return runCommand(db, async (trx) => {
    const row = await trx
      .updateTable('retention_rules')
      .set({ ...spec, updated_at: now })
      .where('account_id', '=', auth.accountId)
      .where('id', '=', id)
      .returning(['id', 'target', 'action', 'days', 'channel', 'created_at', 'updated_at'])
      .executeTakeFirst();
    if (!row) throw notFound(RETENTION_STRINGS.ruleNotFound);
    await recordAudit(trx, {
      accountId: auth.accountId,
      userId: auth.userId,
      actor: auth.username,
      action: 'retention.rule_updated',
      detail: { ruleId: id, ...spec },
    });
    return toRule(row);
  });
}

export async function deleteRule(db: DB, auth: AuthContext, id: number): Promise<void> {
  await runCommand(db, async (trx) => {
    const r = await trx
      .deleteFrom('retention_rules')
      .where('account_id', '=', auth.accountId)
      .where('id', '=', id)
      .executeTakeFirst();
    if (Number(r.numDeletedRows) !== 1) throw notFound(RETENTION_STRINGS.ruleNotFound);
    await recordAudit(trx, {
      accountId: auth.accountId,
      userId: auth.userId,
      actor: auth.username,
      action: 'retention.rule_deleted',
      detail: { ruleId: id },
    });
  });
}

/** What a rule (saved or not) removes if run at `now`: up to one run's cap, and the first ticket numbers. */
export async function previewRule(
  db: DB,
  accountId: number,
  rule: RuleSpec,
  ruleId: number | null,
  now: number,
): Promise<RetentionPreviewItem> {
  const items = await eligible(db, accountId, rule, now, RUN_CAP);
  const ticketNumbers = [...new Set(items.flatMap((i) => (i.ticketNumber === null ? [] : [i.ticketNumber])))].slice(
    0,
    RETENTION_SAMPLE,
  );
  return { ruleId, ...rule, count: items.length, ticketNumbers };
}

export async function previewAccount(db: DB, accountId: number, now: number): Promise<RetentionPreviewItem[]> {
  const out: RetentionPreviewItem[] = [];
  for (const r of await listRules(db, accountId)) out.push(await previewRule(db, accountId, r, r.id, now));
  return out;
}

const toRun = (r: {
  id: number;
  trigger: string;
  counts: string;
  started_at: number;
  finished_at: number;
}): RetentionRun => ({
  id: Number(r.id),
  trigger: r.trigger as RetentionRun['trigger'],
  counts: JSON.parse(r.counts),
  startedAt: Number(r.started_at),
  finishedAt: Number(r.finished_at),
});

export async function listRuns(db: DB, accountId: number): Promise<RetentionRun[]> {
  const rows = await db
    .selectFrom('retention_runs')
    .select(['id', 'trigger', 'counts', 'started_at', 'finished_at'])
    .where('account_id', '=', accountId)
    .orderBy('id', 'desc')
    .limit(RUNS_SHOWN)
    .execute();
  return rows.map(toRun);
}

/**
 * Runs every rule of an account once, in rule order, each at the same `now` the preview uses; records the
 * run with its counts and an audit entry (counts only: nothing personal).
 */
export async function runAccount(
  db: DB,
  dataDir: string,
  accountId: number,
  trigger: RetentionRun['trigger'],
  now: number,
  who: { userId: number | null; actor: string } = { userId: null, actor: 'server' },
): Promise<RetentionRun> {
  const startedAt = Date.now();
  const counts: RetentionRun['counts'] = [];
  for (const r of await listRules(db, accountId))
    counts.push({ ruleId: r.id, target: r.target, count: await runRule(db, dataDir, accountId, r, now) });
  return runCommand(db, async (trx) => {
    const row = await trx
      .insertInto('retention_runs')
      .values({
        account_id: accountId,
        trigger,
        counts: JSON.stringify(counts),
        started_at: startedAt,
        finished_at: Date.now(),
      })
      .returning(['id', 'trigger', 'counts', 'started_at', 'finished_at'])
      .executeTakeFirstOrThrow();
    await recordAudit(trx, {
      accountId,
      userId: who.userId,
      actor: who.actor,
      action: 'retention.run',
      detail: { runId: Number(row.id), trigger, counts },
    });
    return toRun(row);
  });
}

/** Once a day: every account with rules runs them (one account after another, each rule in batches). */
export const retentionTask = (db: DB, dataDir: string, now: () => number): Task => ({
  name: 'runRetentionRules',
  everyMs: DAY,
  async run() {
    const accounts = await db
      .selectFrom('retention_rules')
      .select('account_id')
      .distinct()
      .orderBy('account_id')
      .execute();
    // One account's failure does not keep the others' data: each runs, then the first failure is thrown for
    // the scheduler to log.
    let failed: unknown = null;
    for (const a of accounts)
      await runAccount(db, dataDir, Number(a.account_id), 'schedule', now()).catch((err) => {
        failed ??= err;
      });
    if (failed) throw failed;
  },
});

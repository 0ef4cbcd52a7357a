import {
  type BusinessHoursInput,
  type HolidaysInput,
  SLA_POLICY_STRINGS,
  type SlaPoliciesInput,
  type SlaSettings,
} from '@parley/contracts';
import type { AuthContext } from '../../../platform/auth/sessions.js';
import type { DB } from '../../../platform/db/db.js';
import { badRequest } from '../../../platform/http/errors.js';
import { appendEvent, runCommand, type Trx } from '../../../platform/outbox/index.js';
import { recordAudit } from '../../audit/index.js';
import { readSlaSettings } from '../sla.queries.js';

/** The departments and labels named must be the account's own (another account's id is a 400). */
async function assertOwned(trx: Trx, accountId: number, table: 'departments' | 'labels', ids: (number | null)[]) {
  const wanted = [...new Set(ids.filter((x): x is number => x !== null))];
  if (wanted.length === 0) return;
  const q = trx.selectFrom(table).select('id').where('account_id', '=', accountId).where('id', 'in', wanted);
  const found = await (table === 'labels' ? q.where('removed', '=', 0) : q).execute();
  if (found.length !== wanted.length)
    throw badRequest(table === 'labels' ? SLA_POLICY_STRINGS.noLabel : SLA_POLICY_STRINGS.noDepartment);
}

/**
 * Every SLA settings change: the rows, an audit entry and `sla.settings_updated` (the engine re-times the
 * account's waiting tickets from it) in one transaction. Answers the settings as stored.
 */
async function change(
  db: DB,
  auth: AuthContext,
  action: string,
  detail: Record<string, unknown>,
  write: (trx: Trx, now: number) => Promise<void>,
): Promise<SlaSettings> {
  return runCommand(db, async (trx) => {
    const now = Date.now();
    await write(trx, now);
    await recordAudit(trx, {
      accountId: auth.accountId,
      userId: auth.userId,
      actor: auth.username,
      action: 'sla.settings_updated',
      detail: { change: action, ...detail },
    });
    const settings = await readSlaSettings(trx, auth.accountId);
    await appendEvent(trx, { accountId: auth.accountId, type: 'sla.settings_updated', payload: { action } });
    return settings;
  });
}

/** Sets the hours of the account or of one department (replacing what was there). */
export function saveBusinessHours(db: DB, auth: AuthContext, input: BusinessHoursInput) {
  const scope = input.departmentId ?? 0;
  return change(
    db,
    auth,
    'sla.hours_set',
    { departmentId: input.departmentId, timezone: input.timezone },
    async (trx, now) => {
      await assertOwned(trx, auth.accountId, 'departments', [input.departmentId]);
      const v = { timezone: input.timezone, days: JSON.stringify(input.days), updated_at: now };
      await trx
        .insertInto('business_hours')
        .values({ account_id: auth.accountId, department_id: scope, ...v })
        .onConflict((oc) => oc.columns(['account_id', 'department_id']).doUpdateSet(v))
        .execute();
    },
  );
}

/** A department's own hours removed: it follows the account's again. Unknown: "No such department.". */
export function deleteBusinessHours(db: DB, auth: AuthContext, departmentId: number) {
  return change(db, auth, 'sla.hours_removed', { departmentId }, async (trx) => {
    await assertOwned(trx, auth.accountId, 'departments', [departmentId]);
    await trx
      .deleteFrom('business_hours')
      .where('account_id', '=', auth.accountId)
      .where('department_id', '=', departmentId)
      .execute();
  });
}

/** Replaces the holidays of the account or of one department. */
export function saveHolidays(db: DB, auth: AuthContext, input: HolidaysInput) {
  const scope = input.departmentId ?? 0;
  return change(
    db,
    auth,
    'sla.holidays_set',
    { departmentId: input.departmentId, dates: input.holidays.map((h) => h.date) },
    async (trx) => {
      await assertOwned(trx, auth.accountId, 'departments', [input.departmentId]);
      await trx
        .deleteFrom('holidays')
        .where('account_id', '=', auth.accountId)
        .where('department_id', '=', scope)
        .execute();
      if (input.holidays.length > 0)
        await trx
          .insertInto('holidays')
          .values(
            input.holidays.map((h) => ({
              account_id: auth.accountId,
              department_id: scope,
              date: h.date,
              name: h.name,
            })),
          )
          .execute();
    },
  );
}

/** Replaces the account's policies with the list given, in its order (the order they are tried in). */
export function savePolicies(db: DB, auth: AuthContext, input: SlaPoliciesInput) {
  return change(db, auth, 'sla.policies_set', { names: input.policies.map((p) => p.name) }, async (trx, now) => {
    await assertOwned(
      trx,
      auth.accountId,
      'departments',
      input.policies.map((p) => p.departmentId),
    );
    await assertOwned(
      trx,
      auth.accountId,
      'labels',
      input.policies.map((p) => p.labelId),
    );
    await trx.deleteFrom('sla_policies').where('account_id', '=', auth.accountId).execute();
    if (input.policies.length > 0)
      await trx
        .insertInto('sla_policies')
        .values(
          input.policies.map((p, i) => ({
            account_id: auth.accountId,
            position: i,
            name: p.name,
            priority: p.priority,
            channel: p.channel,
            label_id: p.labelId,
            department_id: p.departmentId,
            first_response: p.firstResponse,
            next_response: p.nextResponse,
            resolution: p.resolution,
            calendar: p.calendar ? 1 : 0,
            created_at: now,
          })),
        )
        .execute();
  });
}

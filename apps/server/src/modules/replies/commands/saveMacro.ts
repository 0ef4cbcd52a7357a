import { type Macro, type MacroAction, type MacroInput, REPLY_STRINGS, TICKET_STATUS } from '@parley/contracts';
import type { AuthContext } from '../../../platform/auth/sessions.js';
import { type DB, isUniqueViolation } from '../../../platform/db/db.js';
import { badRequest, conflict, notFound } from '../../../platform/http/errors.js';
import { appendEvent, runCommand, type Trx } from '../../../platform/outbox/index.js';
import { listTicketStatuses } from '../../tickets/index.js';
import { toMacro } from '../replies.queries.js';
import { checkVariables } from './saveCannedReply.js';

/**
 * Everything a macro names must exist now: its reply's variables, its status (0-3 or one of the account's
 * custom statuses), its labels (not removed) and its assignees (active users). Checked when it is saved and
 * again before a run writes anything; the first problem is a 400 naming it.
 */
export async function checkMacroActions(trx: Trx | DB, accountId: number, actions: MacroAction[]): Promise<void> {
  const statuses = new Set<number>();
  const labels = new Set<number>();
  const users = new Set<string>();
  for (const a of actions) {
    if (a.type === 'reply') checkVariables(a.text);
    if (a.type === 'status') statuses.add(a.status);
    if (a.type === 'add_labels' || a.type === 'remove_labels') for (const l of a.labels) labels.add(l);
    if (a.type === 'assignee') for (const u of a.assignee) users.add(u.trim());
  }
  const custom = [...statuses].some((s) => s > TICKET_STATUS.closed) ? await listTicketStatuses(trx, accountId) : [];
  for (const s of statuses)
    if (s === TICKET_STATUS.all || (s > TICKET_STATUS.closed && !custom.some((c) => c.status_code === s)))
      throw badRequest(REPLY_STRINGS.unknownStatus(s));
  if (labels.size > 0) {
    const found = await trx
      .selectFrom('labels')
      .select('id')
      .where('account_id', '=', accountId)
      .where('removed', '=', 0)
      .where('id', 'in', [...labels])
      .execute();
    const ids = new Set(found.map((r) => Number(r.id)));
    for (const l of labels) if (!ids.has(l)) throw badRequest(REPLY_STRINGS.unknownLabel(l));
  }
  if (users.size > 0) {
    const found = await trx
      .selectFrom('users')
      .select('username')
      .where('account_id', '=', accountId)
      .where('active', '=', 1)
      .where(
        (eb) => eb.fn('lower', ['username']),
        'in',
        [...users].map((u) => u.toLowerCase()),
      )
      .execute();
    const names = new Set(found.map((r) => r.username.toLowerCase()));
    for (const u of users) if (!names.has(u.toLowerCase())) throw badRequest(REPLY_STRINGS.unknownUser(u));
  }
}

async function withNameGuard<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(REPLY_STRINGS.macroNameTaken);
    throw err;
  }
}

async function refuseTakenName(trx: Trx, accountId: number, name: string, except = 0) {
  const taken = await trx
    .selectFrom('macros')
    .select('id')
    .where('account_id', '=', accountId)
    .where('name_lower', '=', name.toLowerCase())
    .where('id', '!=', except)
    .executeTakeFirst();
  if (taken) throw conflict(REPLY_STRINGS.macroNameTaken);
}

const COLUMNS = ['id', 'name', 'actions', 'updated_at'] as const;

/** A new macro of the account (admins). */
export async function createMacro(db: DB, auth: AuthContext, input: MacroInput): Promise<Macro> {
  return withNameGuard(() =>
    runCommand(db, async (trx) => {
      await checkMacroActions(trx, auth.accountId, input.actions);
      await refuseTakenName(trx, auth.accountId, input.name);
      const at = Date.now();
      const row = await trx
        .insertInto('macros')
        .values({
          account_id: auth.accountId,
          name: input.name,
          name_lower: input.name.toLowerCase(),
          actions: JSON.stringify(input.actions),
          created_by: auth.userId,
          created_at: at,
          updated_at: at,
        })
        .returning(COLUMNS)
        .executeTakeFirstOrThrow();
      const macro = toMacro(row);
      await appendEvent(trx, {
        accountId: auth.accountId,
        type: 'macro.created',
        payload: { id: macro.id, by: auth.userId },
      });
      return macro;
    }),
  );
}

export async function updateMacro(db: DB, auth: AuthContext, id: number, input: MacroInput): Promise<Macro> {
  return withNameGuard(() =>
    runCommand(db, async (trx) => {
      const row = await trx
        .updateTable('macros')
        .set({
          name: input.name,
          name_lower: input.name.toLowerCase(),
          actions: JSON.stringify(input.actions),
          updated_at: Date.now(),
        })
        .where('account_id', '=', auth.accountId)
        .where('id', '=', id)
        .returning(COLUMNS)
        .executeTakeFirst();
      if (!row) throw notFound(REPLY_STRINGS.macroNotFound);
      await checkMacroActions(trx, auth.accountId, input.actions);
      await refuseTakenName(trx, auth.accountId, input.name, id);
      await appendEvent(trx, { accountId: auth.accountId, type: 'macro.updated', payload: { id, by: auth.userId } });
      return toMacro(row);
    }),
  );
}

export async function deleteMacro(db: DB, auth: AuthContext, id: number): Promise<void> {
  await runCommand(db, async (trx) => {
    const done = await trx
      .deleteFrom('macros')
      .where('account_id', '=', auth.accountId)
      .where('id', '=', id)
      .returning('id')
      .executeTakeFirst();
    if (!done) throw notFound(REPLY_STRINGS.macroNotFound);
    await appendEvent(trx, { accountId: auth.accountId, type: 'macro.deleted', payload: { id, by: auth.userId } });
  });
}

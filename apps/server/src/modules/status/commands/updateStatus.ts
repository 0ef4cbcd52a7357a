import { AGENT_STATUSES, REASON_REQUIRED, type StatusUpdated, type UpdateStatusInput } from '@parley/contracts';
import type { AuthContext } from '../../../platform/auth/sessions.js';
import type { DB } from '../../../platform/db/db.js';
import { badRequest, unauthorized } from '../../../platform/http/errors.js';
import { runCommand, type Trx } from '../../../platform/outbox/index.js';
import { STATUS_STRINGS } from '../status.strings.js';
import { applyStatus } from './applyStatus.js';

/** The choices besides Online that need no lookup. */
const BUILT_IN = new Set<string>(AGENT_STATUSES.filter((s) => s !== 'ONLINE'));

/** The chosen status as stored in second_status ('' for Online); throws 400 for anything else. */
async function resolveChoice(trx: Trx, accountId: number, input: UpdateStatusInput): Promise<string> {
  if (input.status === 'ONLINE') return '';
  if (BUILT_IN.has(input.status)) {
    if (REASON_REQUIRED.includes(input.status) && input.reason === '') throw badRequest(STATUS_STRINGS.reasonRequired);
    return input.status;
  }
  if (input.status.toUpperCase() === 'OFFLINE') throw badRequest(STATUS_STRINGS.offlineNotChosen);
  const custom = await trx
    .selectFrom('custom_statuses')
    .select(['name', 'needs_reason'])
    .where('account_id', '=', accountId)
    .where((eb) => eb(eb.fn('lower', ['name']), '=', input.status.toLowerCase()))
    .executeTakeFirst();
  if (!custom) throw badRequest(STATUS_STRINGS.unknownStatus);
  if (custom.needs_reason && input.reason === '') throw badRequest(STATUS_STRINGS.customReasonRequired(custom.name));
  return custom.name;
}

/**
 * STATUS-10: the agent chooses a status. ONLINE clears the choice; a built-in status or the
 * name of one of the account's custom statuses becomes second_status, with its reason. Whoever chooses
 * is evidently here, so presence becomes ONLINE as well (the presence sweep puts a user with no socket
 * back Offline after the grace period). Choosing the current status again changes nothing.
 */
export async function updateStatus(db: DB, auth: AuthContext, input: UpdateStatusInput): Promise<StatusUpdated> {
  return runCommand(db, async (trx) => {
    const choice = await resolveChoice(trx, auth.accountId, input);
    const r = await applyStatus(trx, auth, { status: 'ONLINE', second_status: choice, reason: input.reason });
    // The session outlived its user (deleted in the meantime).
    if (!r) throw unauthorized();
    return r.state;
  });
}

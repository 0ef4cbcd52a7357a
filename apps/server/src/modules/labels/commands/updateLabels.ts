import { ErrorCode, type Label, type LabelsUpdated, type LabelUpdateInput, validateLabel } from '@parley/contracts';
import type { AuthContext } from '../../../platform/auth/sessions.js';
import type { DB } from '../../../platform/db/db.js';
import { AppError, notFound } from '../../../platform/http/errors.js';
import { appendEvent, runCommand } from '../../../platform/outbox/index.js';
import { recordAudit } from '../../audit/index.js';
import { listLabels } from '../labels.queries.js';
import { labelsAudience } from '../labels.realtime.js';

const LABEL_NOT_FOUND = 'Label not found.';
const str = (v: unknown) => String(v ?? '').trim();

/**
 * LABEL-04..09: an admin saves the account's labels in one go. Items with an id update that label, items
 * without one (or marked `isNew`) are added, ids in `delete` are marked removed (kept, so old tickets can
 * show "Removed"). Every id must name a label of the caller's account (else 404) and every item must pass
 * `validateLabel` (else 400 in the spec's words); on any failure nothing changes. A removed label is read
 * only: an item naming it leaves it as it is. Emits `labels.updated` (`labelsUpdated` to the account).
 */
export async function updateLabels(db: DB, auth: AuthContext, input: LabelUpdateInput): Promise<Label[]> {
  return runCommand(db, async (trx) => {
    const edits = input.labelArray.filter((l) => l.id !== undefined && !l.isNew);
    const named = [...new Set([...edits.map((l) => l.id!), ...input.delete])];
    const found = named.length
      ? await trx
          .selectFrom('labels')
          .select(['id', 'removed'])
          .where('account_id', '=', auth.accountId)
          .where('id', 'in', named)
          .execute()
      : [];
    const removed = new Map(found.map((r) => [Number(r.id), Number(r.removed) === 1]));
    if (named.some((id) => !removed.has(id))) throw notFound(LABEL_NOT_FOUND);
    for (const l of input.labelArray) {
      const error = validateLabel(l);
      if (error) throw new AppError(400, ErrorCode.validation, error);
    }
    if (input.labelArray.length === 0 && input.delete.length === 0) return listLabels(trx, auth.accountId);

    const at = Date.now();
    const values = (l: (typeof input.labelArray)[number]) => ({
      name: str(l.name),
      color: str(l.color),
      color_dark: str(l.colorDark),
      level: Number(str(l.level)),
      sla: Number(str(l.sla)),
    });
    const added: number[] = [];
    for (const l of input.labelArray) {
      if (l.id !== undefined && !l.isNew) {
        if (removed.get(l.id)) continue;
        await trx
          .updateTable('labels')
          .set(values(l))
          .where('account_id', '=', auth.accountId)
          .where('id', '=', l.id)
          .execute();
      } else {
        const row = await trx
          .insertInto('labels')
          .values({ account_id: auth.accountId, ...values(l), removed: 0, created_at: at })
          .returning('id')
          .executeTakeFirstOrThrow();
        added.push(Number(row.id));
      }
    }
    const toRemove = input.delete.filter((id) => !removed.get(id));
    if (toRemove.length)
      await trx
        .updateTable('labels')
        .set({ removed: 1 })
        .where('account_id', '=', auth.accountId)
        .where('id', 'in', toRemove)
        .execute();

    const labels = await listLabels(trx, auth.accountId);
    await recordAudit(trx, {
      accountId: auth.accountId,
      userId: auth.userId,
      actor: auth.username,
      action: 'labels.updated',
      detail: { updated: edits.map((l) => l.id!), added, removed: toRemove },
    });
    const payload: LabelsUpdated = { labels };
    await appendEvent(trx, {
      accountId: auth.accountId,
      type: 'labels.updated',
      payload,
      realtime: labelsAudience(auth.accountId, payload),
    });
    return labels;
  });
}

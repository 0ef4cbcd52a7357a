import type { AccountSettings, Label } from '@parley/contracts';
import type { DB } from '../../platform/db/db.js';
import type { Trx } from '../../platform/outbox/index.js';

export const LABEL_COLUMNS = ['id', 'name', 'color', 'color_dark', 'level', 'sla', 'removed'] as const;

export interface LabelRow {
  id: number;
  name: string;
  color: string;
  color_dark: string;
  level: number;
  sla: number;
  removed: number;
}

export const toLabel = (r: LabelRow): Label => ({
  id: Number(r.id),
  name: r.name,
  color: r.color,
  colorDark: r.color_dark,
  level: Number(r.level),
  sla: Number(r.sla),
  removed: Number(r.removed) === 1,
});

/** LABEL-12: every label of the account in the order made, removed ones included (flagged, LABEL-02). */
export async function listLabels(db: DB | Trx, accountId: number): Promise<Label[]> {
  const rows = await db
    .selectFrom('labels')
    .select(LABEL_COLUMNS)
    .where('account_id', '=', accountId)
    .orderBy('id')
    .execute();
  return rows.map(toLabel);
}

/** The account's settings; anything unreadable or missing reads as "not set". */
export async function readSettings(db: DB | Trx, accountId: number): Promise<AccountSettings> {
  const row = await db.selectFrom('accounts').select('settings').where('id', '=', accountId).executeTakeFirst();
  return parseSettings(row?.settings);
}

export function parseSettings(raw: string | undefined): AccountSettings {
  let v: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(raw ?? '{}');
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) v = parsed;
  } catch {
    // A broken value reads as no settings; the next save writes a good one.
  }
  return { duration: typeof v.duration === 'number' ? v.duration : null };
}

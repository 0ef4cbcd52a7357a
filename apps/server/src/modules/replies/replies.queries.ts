import type { CannedReply, CannedReplyQuery, Macro, MacroAction } from '@parley/contracts';
import { offeredOn } from '@parley/contracts';
import type { DB } from '../../platform/db/db.js';
import type { CannedRepliesTable, MacrosTable } from '../../platform/db/schema.js';
import type { Trx } from '../../platform/outbox/index.js';

type Row<T> = { [K in keyof T]: T[K] extends { __select__: infer S } ? S : T[K] };

const parseList = <T>(json: string): T[] => {
  try {
    const v = JSON.parse(json) as unknown;
    return Array.isArray(v) ? (v as T[]) : [];
  } catch {
    return [];
  }
};

export const toCannedReply = (
  r: Pick<Row<CannedRepliesTable>, 'id' | 'owner_id' | 'title' | 'shortcut' | 'body' | 'channels' | 'updated_at'>,
): CannedReply => ({
  id: Number(r.id),
  title: r.title,
  shortcut: r.shortcut,
  body: r.body,
  channels: parseList<string>(r.channels),
  shared: Number(r.owner_id) === 0,
  owner_id: Number(r.owner_id) === 0 ? null : Number(r.owner_id),
  updated_at: Number(r.updated_at),
});

export const toMacro = (r: Pick<Row<MacrosTable>, 'id' | 'name' | 'actions' | 'updated_at'>): Macro => ({
  id: Number(r.id),
  name: r.name,
  actions: parseList<MacroAction>(r.actions),
  updated_at: Number(r.updated_at),
});

/**
 * The canned replies a user may use: the account's shared ones and their own, by shortcut. `q` searches title,
 * shortcut and text (case-insensitive, plain text); `channel` keeps those offered on that ticket channel. A
 * user's list is small (hundreds at most), so both are applied to the rows read.
 */
export async function listCannedReplies(
  db: DB | Trx,
  who: { accountId: number; userId: number },
  query: CannedReplyQuery,
): Promise<CannedReply[]> {
  const rows = await db
    .selectFrom('canned_replies')
    .select(['id', 'owner_id', 'title', 'shortcut', 'body', 'channels', 'updated_at'])
    .where('account_id', '=', who.accountId)
    .where('owner_id', 'in', [0, who.userId])
    .orderBy('shortcut_lower')
    .orderBy('id')
    .limit(1000)
    .execute();
  const text = query.q?.trim().toLowerCase();
  return rows
    .map(toCannedReply)
    .filter((r) => !query.channel || offeredOn(r, query.channel))
    .filter((r) => !text || [r.title, r.shortcut, r.body].some((x) => x.toLowerCase().includes(text)));
}

/** The account's macros, by name. */
export async function listMacros(db: DB | Trx, accountId: number): Promise<Macro[]> {
  const rows = await db
    .selectFrom('macros')
    .select(['id', 'name', 'actions', 'updated_at'])
    .where('account_id', '=', accountId)
    .orderBy('name_lower')
    .orderBy('id')
    .execute();
  return rows.map(toMacro);
}

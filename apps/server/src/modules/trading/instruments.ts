import { type Instrument, type InstrumentInput, TRADING_STRINGS as S } from '@parley/contracts';
import type { AuthContext } from '../../platform/auth/sessions.js';
import type { DB } from '../../platform/db/db.js';
import { lockAccount } from '../../platform/db/locks.js';
import { conflict, notFound } from '../../platform/http/errors.js';
import { runCommand, type Trx } from '../../platform/outbox/index.js';
import type { WatchedInstrument } from './read.js';

type Input = { symbol: string; name: string; aliases: string[] };

export const parseAliases = (raw: string): string[] => {
  try {
    const v = JSON.parse(raw) as unknown;
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
};

interface Row {
  id: number | bigint;
  symbol: string;
  name: string;
  aliases: string;
  created_at: number | bigint;
}
const toInstrument = (r: Row, mentions = 0): Instrument => ({
  id: Number(r.id),
  symbol: r.symbol,
  name: r.name,
  aliases: parseAliases(r.aliases),
  created_at: Number(r.created_at),
  mentions,
});

/** The same alias twice (whatever its case) is kept once. */
const uniqueAliases = (list: readonly string[]) => {
  const seen = new Set<string>();
  return list.filter((a) => {
    const k = a.toLowerCase();
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
};

/** The account's watch list by symbol, each with its mentions read so far. */
export async function listInstruments(db: DB | Trx, accountId: number): Promise<Instrument[]> {
  const rows = await db
    .selectFrom('trading_instruments')
    .select(['id', 'symbol', 'name', 'aliases', 'created_at'])
    .where('account_id', '=', accountId)
    .orderBy('symbol')
    .execute();
  const counts = new Map<number, number>();
  if (rows.length > 0)
    for (const c of await db
      .selectFrom('trading_mentions')
      .select((e) => ['instrument_id', e.fn.countAll().as('n')])
      .where('account_id', '=', accountId)
      .groupBy('instrument_id')
      .execute())
      counts.set(Number(c.instrument_id), Number(c.n));
  return rows.map((r) => toInstrument(r, counts.get(Number(r.id)) ?? 0));
}

/** One instrument of the account; 404 for an id of another account or none. */
export async function instrumentOf(db: DB | Trx, accountId: number, id: number): Promise<Instrument> {
  const r = await db
    .selectFrom('trading_instruments')
    .select(['id', 'symbol', 'name', 'aliases', 'created_at'])
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!r) throw notFound(S.notFound);
  const n = await db
    .selectFrom('trading_mentions')
    .select((e) => e.fn.countAll().as('n'))
    .where('account_id', '=', accountId)
    .where('instrument_id', '=', id)
    .executeTakeFirst();
  return toInstrument(r, Number(n?.n ?? 0));
}

/** What the mention listener matches against. */
export async function watchList(trx: Trx, accountId: number): Promise<WatchedInstrument[]> {
  const rows = await trx
    .selectFrom('trading_instruments')
    .select(['id', 'symbol', 'name', 'aliases'])
    .where('account_id', '=', accountId)
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ id: Number(r.id), symbol: r.symbol, name: r.name, aliases: parseAliases(r.aliases) }));
}

async function assertSymbolFree(trx: Trx, accountId: number, symbol: string, except?: number) {
  let q = trx
    .selectFrom('trading_instruments')
    .select('id')
    .where('account_id', '=', accountId)
    .where('symbol', '=', symbol);
  if (except !== undefined) q = q.where('id', '!=', except);
  if (await q.executeTakeFirst()) throw conflict(S.symbolTaken(symbol));
}

/** Adds an instrument to the watch list; 409 when the symbol is on it already. */
export function addInstrument(db: DB, auth: AuthContext, input: Input): Promise<Instrument> {
  return runCommand(db, async (trx) => {
    await lockAccount(trx, auth.accountId);
    await assertSymbolFree(trx, auth.accountId, input.symbol);
    const row = await trx
      .insertInto('trading_instruments')
      .values({
        account_id: auth.accountId,
        symbol: input.symbol,
        name: input.name,
        aliases: JSON.stringify(uniqueAliases(input.aliases)),
        created_at: Date.now(),
      })
      .returning(['id', 'symbol', 'name', 'aliases', 'created_at'])
      .executeTakeFirstOrThrow();
    return toInstrument(row);
  });
}

/** Edits an instrument; its mentions read so far stay. */
export function editInstrument(db: DB, auth: AuthContext, id: number, input: Input): Promise<Instrument> {
  return runCommand(db, async (trx) => {
    await instrumentOf(trx, auth.accountId, id);
    await lockAccount(trx, auth.accountId);
    await assertSymbolFree(trx, auth.accountId, input.symbol, id);
    await trx
      .updateTable('trading_instruments')
      .set({ symbol: input.symbol, name: input.name, aliases: JSON.stringify(uniqueAliases(input.aliases)) })
      .where('account_id', '=', auth.accountId)
      .where('id', '=', id)
      .execute();
    return instrumentOf(trx, auth.accountId, id);
  });
}

/** Removes an instrument with its mentions. */
export function removeInstrument(db: DB, auth: AuthContext, id: number): Promise<void> {
  return runCommand(db, async (trx) => {
    await instrumentOf(trx, auth.accountId, id);
    await trx
      .deleteFrom('trading_mentions')
      .where('account_id', '=', auth.accountId)
      .where('instrument_id', '=', id)
      .execute();
    await trx.deleteFrom('trading_instruments').where('account_id', '=', auth.accountId).where('id', '=', id).execute();
  });
}

export type { InstrumentInput };

import type { ColumnDefinitionBuilder, CreateTableBuilder, Kysely } from 'kysely';
import type { Dialect } from '../platform/db/db.js';

/** Column types that read the same in both dialects. */
export function columns(dialect: Dialect) {
  const pg = dialect === 'postgres';
  return {
    /** Auto-increment primary key. */
    id: <T extends string>(t: CreateTableBuilder<T, never>) =>
      pg
        ? t.addColumn('id', 'bigserial', (c) => c.primaryKey())
        : t.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement()),
    /** Whole numbers that may exceed 2^31 (timestamps in ms, ids). */
    big: pg ? ('bigint' as const) : ('integer' as const),
    text: 'text' as const,
    int: 'integer' as const,
  };
}

export const notNull = (c: ColumnDefinitionBuilder) => c.notNull();

/** A migration of ours: the dialect is passed in so one file serves both databases. */
export interface ParleyMigration {
  up(db: Kysely<unknown>, dialect: Dialect): Promise<void>;
  down?(db: Kysely<unknown>, dialect: Dialect): Promise<void>;
}

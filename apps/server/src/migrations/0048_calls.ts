import type { Kysely } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/**
 * Calls (CALL-29 .. CALL-40, REC): every call is a CALL ticket (its direction, number, DID and assignees
 * live on the ticket); `calls` holds what only a call has: the call server's id of it (unique per account,
 * so a repeated start finds the same ticket), when it started and ended, its duration, its recording (an
 * upload of the account, '' none) and the voice reading of the recording (energy and pace on CALL-31's
 * steps, null until read; personality '' until something reads it).
 * `call_transcripts` holds a call's transcript entries (CALL-32). `call_dids` maps a DID of the account to
 * a description (CALL-35). `accounts.acw_seconds` is the after-call wrap-up (CALL-40, default 30).
 */
export const m0048_calls: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    const account = (x: import('kysely').ColumnDefinitionBuilder) =>
      x.notNull().references('accounts.id').onDelete('cascade');
    await c
      .id(db.schema.createTable('calls').ifNotExists())
      .addColumn('account_id', c.big, account)
      .addColumn('ticket_id', c.big, (x) => x.notNull().references('tickets.id').onDelete('cascade'))
      .addColumn('call_id', c.text, (x) => x.notNull())
      .addColumn('user_id', c.big)
      .addColumn('started_at', c.big, (x) => x.notNull())
      .addColumn('ended_at', c.big)
      .addColumn('duration', c.int, (x) => x.notNull().defaultTo(0))
      .addColumn('recording_key', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('recording_name', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('energy', c.int)
      .addColumn('pace', c.int)
      .addColumn('personality', c.text, (x) => x.notNull().defaultTo(''))
      .execute();
    await db.schema
      .createIndex('calls_account_call_idx')
      .ifNotExists()
      .unique()
      .on('calls')
      .columns(['account_id', 'call_id'])
      .execute();
    await db.schema
      .createIndex('calls_account_ticket_idx')
      .ifNotExists()
      .on('calls')
      .columns(['account_id', 'ticket_id'])
      .execute();

    await c
      .id(db.schema.createTable('call_transcripts').ifNotExists())
      .addColumn('account_id', c.big, account)
      .addColumn('ticket_id', c.big, (x) => x.notNull().references('tickets.id').onDelete('cascade'))
      .addColumn('source', c.text, (x) => x.notNull())
      .addColumn('transcription', c.text, (x) => x.notNull())
      .addColumn('translated_transcription', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('interim', c.int, (x) => x.notNull().defaultTo(0))
      .addColumn('data_id', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('energy', c.int)
      .addColumn('pace', c.int)
      .addColumn('emotion', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('personality', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('created_at', c.big, (x) => x.notNull())
      .execute();
    await db.schema
      .createIndex('call_transcripts_account_ticket_idx')
      .ifNotExists()
      .on('call_transcripts')
      .columns(['account_id', 'ticket_id', 'id'])
      .execute();

    await c
      .id(db.schema.createTable('call_dids').ifNotExists())
      .addColumn('account_id', c.big, account)
      .addColumn('did', c.text, (x) => x.notNull())
      .addColumn('description', c.text, (x) => x.notNull())
      .execute();
    await db.schema
      .createIndex('call_dids_account_did_idx')
      .ifNotExists()
      .unique()
      .on('call_dids')
      .columns(['account_id', 'did'])
      .execute();

    await db.schema
      .alterTable('accounts')
      .addColumn('acw_seconds', c.int, (x) => x.notNull().defaultTo(30))
      .execute();
  },
};

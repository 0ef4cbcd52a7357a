import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/**
 * TICKET-14, TICKET-15: the spec's ticket fields the list and info answers lacked, each with a default that
 * means "none", so every existing row and every writer that does not know them stays valid:
 * - `attachment` (0/1): the conversation holds a file. Kept by a trigger on `messages` that fires only for a
 *   message with files (`files` is not `[]`) and only while the ticket's flag is 0: no write on the other
 *   messages, none from the message commands. Backfilled from the stored messages.
 * - `ref`, `receiver_email`: the source channel's reference for the conversation, the account's address an
 *   e-mail came to.
 * - `emotion`, `emotion_2` (JSON object, emotion -> count): the AI hints' reading of the customer's messages.
 * - `call_direction` ('' | inbound | outbound), `did`: a call ticket's direction and number.
 * - `default_chat` (0/1): the customer's default conversation on its channel.
 * - `user_id`: the user who opened the ticket (null: a customer did).
 * `session_id` is not stored here: the live chat's own row (`livechats.session_id`) holds it.
 */
export const m0019_ticket_fields: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    const add: [string, 'text' | 'integer', string | number][] = [
      ['attachment', c.int, 0],
      ['ref', c.text, ''],
      ['receiver_email', c.text, ''],
      ['emotion', c.text, ''],
      ['emotion_2', c.text, '{}'],
      ['call_direction', c.text, ''],
      ['did', c.text, ''],
      ['default_chat', c.int, 0],
    ];
    for (const [name, type, value] of add)
      await db.schema
        .alterTable('tickets')
        .addColumn(name, type, (x) => x.notNull().defaultTo(value))
        .execute();
    await db.schema.alterTable('tickets').addColumn('user_id', c.big).execute();

    await sql`update tickets set attachment = 1 where id in (select ticket_id from messages where files <> '[]')`.execute(
      db,
    );
    const setFlag = (ref: string) =>
      `update tickets set attachment = 1 where id = ${ref}.ticket_id and account_id = ${ref}.account_id and attachment = 0`;
    if (dialect === 'postgres') {
      await sql
        .raw(`create or replace function parley_ticket_attachment() returns trigger language plpgsql as $$
begin
  ${setFlag('new')};
  return null;
end $$`)
        .execute(db);
      await sql`create trigger messages_ticket_attachment after insert on messages for each row
        when (new.files <> '[]') execute function parley_ticket_attachment()`.execute(db);
    } else {
      await sql
        .raw(`create trigger messages_ticket_attachment after insert on messages
          when new.files <> '[]' begin ${setFlag('new')}; end`)
        .execute(db);
    }
  },
};

import type { Kysely } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/**
 * PROFILE-16: a user's profile picture, the URL of the (account-scoped) thumbnail of an image the user
 * uploaded; null: none, the avatar shows initials.
 * CALL-02, CALL-03: a user's SIP line as the auth check reports it (`sip.active`, `sip_number`, `password`).
 * The SIP password is the line's credential that the browser softphone registers with, so it is stored as
 * given (it must be handed to the browser) and never logged.
 */
export const m0017_user_photo_sip: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    await db.schema.alterTable('users').addColumn('photo', c.text).execute();
    await db.schema
      .alterTable('users')
      .addColumn('sip_active', c.int, (col) => col.notNull().defaultTo(0))
      .execute();
    await db.schema
      .alterTable('users')
      .addColumn('sip_number', c.text, (col) => col.notNull().defaultTo(''))
      .execute();
    await db.schema
      .alterTable('users')
      .addColumn('sip_password', c.text, (col) => col.notNull().defaultTo(''))
      .execute();
  },
};

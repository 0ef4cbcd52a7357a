import type { Kysely } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/**
 * SAML single logout (docs/sso.md): a session opened through SAML keeps the NameID (and its format) and the
 * SessionIndex the identity provider gave, so a LogoutRequest can name it and an IdP's LogoutRequest can find
 * it (the IdP's single logout URL is kept since 0055).
 */
export const m0061_saml_logout: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    await db.schema
      .alterTable('sso_sessions')
      .addColumn('name_id', c.text, (x) => x.notNull().defaultTo(''))
      .execute();
    await db.schema
      .alterTable('sso_sessions')
      .addColumn('name_id_format', c.text, (x) => x.notNull().defaultTo(''))
      .execute();
    await db.schema
      .alterTable('sso_sessions')
      .addColumn('session_index', c.text, (x) => x.notNull().defaultTo(''))
      .execute();
    await db.schema
      .createIndex('sso_sessions_name_id')
      .ifNotExists()
      .on('sso_sessions')
      .columns(['account_id', 'name_id'])
      .execute();
  },
};

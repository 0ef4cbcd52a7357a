import type { Kysely } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/**
 * Single sign-on (docs/sso.md): `sso_configs` (one per account: OpenID Connect or SAML, the sign-in name,
 * who just-in-time users become, "SSO only"), `sso_requests` (sign-ins under way: OIDC state, nonce and PKCE
 * verifier, SAML request ids; single use), `sso_assertions` (SAML assertion ids already used, kept until
 * they expire, so a replayed response is refused) and `sso_sessions` (the Parley sessions opened through an
 * identity provider, for its sign-out).
 */
export const m0055_sso: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    await c
      .id(db.schema.createTable('sso_configs').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().unique().references('accounts.id').onDelete('cascade'))
      .addColumn('slug', c.text, (x) => x.notNull().unique())
      .addColumn('kind', c.text, (x) => x.notNull())
      .addColumn('enabled', c.int, (x) => x.notNull().defaultTo(0))
      .addColumn('sso_only', c.int, (x) => x.notNull().defaultTo(0))
      .addColumn('jit_type', c.text, (x) => x.notNull().defaultTo('agent'))
      .addColumn('jit_department_id', c.big)
      .addColumn('oidc_issuer', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('oidc_client_id', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('oidc_client_secret', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('oidc_scopes', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('saml_metadata', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('saml_idp_entity_id', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('saml_entry_point', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('saml_logout_url', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('saml_certs', c.text, (x) => x.notNull().defaultTo('[]'))
      .addColumn('saml_sp_entity_id', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('updated_by', c.big, (x) => x.notNull())
      .addColumn('created_at', c.big, (x) => x.notNull())
      .addColumn('updated_at', c.big, (x) => x.notNull())
      .execute();
    await c
      .id(db.schema.createTable('sso_requests').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('kind', c.text, (x) => x.notNull())
      .addColumn('key_hash', c.text, (x) => x.notNull().unique())
      .addColumn('nonce', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('verifier', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('created_at', c.big, (x) => x.notNull())
      .addColumn('expires_at', c.big, (x) => x.notNull())
      .execute();
    await c
      .id(db.schema.createTable('sso_assertions').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('assertion_id', c.text, (x) => x.notNull())
      .addColumn('expires_at', c.big, (x) => x.notNull())
      .execute();
    await db.schema
      .createIndex('sso_assertions_unique_idx')
      .ifNotExists()
      .unique()
      .on('sso_assertions')
      .columns(['account_id', 'assertion_id'])
      .execute();
    await c
      .id(db.schema.createTable('sso_sessions').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('session_id', c.big, (x) => x.notNull().unique().references('sessions.id').onDelete('cascade'))
      .addColumn('kind', c.text, (x) => x.notNull())
      .addColumn('id_token', c.text, (x) => x.notNull().defaultTo(''))
      .addColumn('created_at', c.big, (x) => x.notNull())
      .execute();
  },
};

import type { Kysely } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/**
 * CRYPT-02, CRYPT-04: the published encryption keys (the spec's encryption record: method, key_type,
 * key_value, username), one per user and method. RSA: the user's public key (SPKI PEM) that senders wrap
 * each message's key for; AES: only the fingerprint of the shared key, never the key. `kid` is the key id
 * the envelopes name. Private keys and AES keys stay in the browsers (docs/encryption.md).
 */
export const m0071_encryption_keys: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    await c
      .id(db.schema.createTable('encryption_keys').ifNotExists())
      .addColumn('account_id', c.big, (x) => x.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('user_id', c.big, (x) => x.notNull().references('users.id').onDelete('cascade'))
      .addColumn('method', c.text, (x) => x.notNull())
      .addColumn('key_type', c.text, (x) => x.notNull())
      .addColumn('key_value', c.text, (x) => x.notNull())
      .addColumn('kid', c.text, (x) => x.notNull())
      .addColumn('updated_at', c.big, (x) => x.notNull())
      .execute();
    await db.schema
      .createIndex('encryption_keys_user_method_idx')
      .ifNotExists()
      .unique()
      .on('encryption_keys')
      .columns(['account_id', 'user_id', 'method'])
      .execute();
  },
};

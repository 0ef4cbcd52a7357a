import type { Kysely } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/**
 * NOTIF-37, NOTIF-38: the per-channel MessageNotification choice of the browser behind a Web Push
 * subscription, so a new message's push honours it. `channels_off` is the JSON list of channel codes turned
 * off there; null (every row before this migration) means every channel on.
 */
export const m0015_push_channels: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    await db.schema.alterTable('push_subscriptions').addColumn('channels_off', c.text).execute();
  },
};

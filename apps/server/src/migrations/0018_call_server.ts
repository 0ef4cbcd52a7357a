import type { Kysely } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/**
 * CALL-13, CALL-14, CALL-44: an account's own call server, the SIP-over-WebSocket address (`wss://...`) its
 * softphones register at; null uses the installation's default (`SIP_WS_URL`).
 */
export const m0018_call_server: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    await db.schema.alterTable('accounts').addColumn('sip_ws_url', c.text).execute();
  },
};

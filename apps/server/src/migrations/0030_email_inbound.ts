import { randomBytes } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/** As the module makes them (mailboxes.queries.ts): 20 lowercase hex characters. */
const newInboundToken = () => randomBytes(10).toString('hex');

/**
 * Forwarded mail and DKIM (see docs/email.md, "In by forwarding" and "DKIM").
 * - `mailboxes.inbound_token`: the secret part of the mailbox's forwarding address
 *   (`mbx-<id>-<token>@<INBOUND_SMTP_DOMAIN>`); mailboxes made before get one here.
 * - `mailboxes.dkim_selector` ('' none) and `dkim_secret` (the PEM private key sealed with SECRETS_KEY,
 *   '' none): replies from the mailbox are signed when both are set.
 */
export const m0030_email_inbound: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    await db.schema
      .alterTable('mailboxes')
      .addColumn('inbound_token', c.text, (x) => x.notNull().defaultTo(''))
      .execute();
    await db.schema
      .alterTable('mailboxes')
      .addColumn('dkim_selector', c.text, (x) => x.notNull().defaultTo(''))
      .execute();
    await db.schema
      .alterTable('mailboxes')
      .addColumn('dkim_secret', c.text, (x) => x.notNull().defaultTo(''))
      .execute();
    const rows = await sql<{ id: number }>`select id from mailboxes`.execute(db);
    for (const r of rows.rows)
      await sql`update mailboxes set inbound_token = ${newInboundToken()} where id = ${r.id}`.execute(db);
  },
};

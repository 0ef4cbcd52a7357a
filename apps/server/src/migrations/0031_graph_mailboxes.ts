import type { Kysely } from 'kysely';
import type { Dialect } from '../platform/db/db.js';
import { columns, type ParleyMigration } from './helpers.js';

/**
 * Microsoft 365 mailboxes through the Microsoft Graph mail API (see docs/email.md, "Microsoft 365").
 * - `mailboxes.kind`: `imap` (mail fetched by IMAP, replies by SMTP) or `graph`. A graph mailbox keeps its
 *   app registration (`graph_tenant_id`, `graph_client_id`, `graph_secret` sealed with SECRETS_KEY) and the
 *   state of its Graph subscription: its id (notifications name it), when it expires, the `clientState`
 *   (sealed) every notification must carry, and the delta link of the Inbox (the poll that picks up a
 *   notification that never came). Its IMAP/SMTP columns stay empty.
 * Only new columns on `mailboxes`: it depends on no migration after 0028.
 */
export const m0031_graph_mailboxes: ParleyMigration = {
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const c = columns(dialect);
    const add = (name: string, type: 'text' | 'bigint' | 'integer', notNull: boolean, def?: string) =>
      db.schema
        .alterTable('mailboxes')
        .addColumn(name, type, (x) => {
          const y = notNull ? x.notNull() : x;
          return def === undefined ? y : y.defaultTo(def);
        })
        .execute();
    await add('kind', c.text, true, 'imap');
    await add('graph_tenant_id', c.text, true, '');
    await add('graph_client_id', c.text, true, '');
    await add('graph_secret', c.text, true, '');
    await add('graph_subscription_id', c.text, false);
    await add('graph_subscription_until', c.big, false);
    await add('graph_client_state', c.text, true, '');
    await add('graph_delta_link', c.text, false);
    await db.schema
      .createIndex('mailboxes_graph_subscription_idx')
      .ifNotExists()
      .on('mailboxes')
      .column('graph_subscription_id')
      .execute();
  },
};

import { createHash, timingSafeEqual } from 'node:crypto';
import { EMAIL_STRINGS, type GraphNotificationBody } from '@parley/contracts';
import type pino from 'pino';
import type { DB } from '../../platform/db/db.js';
import { appendEvents, type Listener, runCommand } from '../../platform/outbox/index.js';
import type { Conversations } from '../messages/index.js';
import { type MailboxRef, type StoreOutcome, storeMail } from './commands/storeMail.js';
import { type GraphClient, GraphError, graphAppOf, graphWords, userPath } from './graphClient.js';
import { findMailbox, type MailboxRow } from './mailboxes.queries.js';
import { parseMail } from './parseMail.js';
import type { Secrets } from './secrets.js';

/** The route Microsoft Graph posts its change notifications (and the validation handshake) to. */
export const GRAPH_NOTIFY_PATH = '/api/email/graph/notify';

export interface GraphInDeps {
  db: DB;
  conversations: Conversations;
  dataDir: string;
  secrets: Secrets | null;
  graph: GraphClient;
  log: pino.Logger;
}

/** What `email.graph_notified` carries: a message Graph told us of, to fetch and store. */
export interface GraphNotified {
  mailboxId: number;
  /** Graph's id of the message (resourceData.id). */
  graphId: string;
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/** The store's view of a graph mailbox: its tickets are GRAPH_EMAIL. */
export const graphRef = (row: MailboxRow): MailboxRef => ({
  id: Number(row.id),
  accountId: Number(row.account_id),
  address: row.address,
  departmentId: row.department_id === null ? null : Number(row.department_id),
  channel: 'GRAPH_EMAIL',
});

/** Keeps the last error on the mailbox row (shown in Settings), never a secret. */
export async function recordGraphError(deps: { db: DB; log: pino.Logger }, row: MailboxRow, words: string) {
  deps.log.warn({ mailbox: Number(row.id), error: words }, 'microsoft 365 mailbox failed');
  await deps.db
    .updateTable('mailboxes')
    .set({ last_error: words, last_error_at: Date.now() })
    .where('account_id', '=', Number(row.account_id))
    .where('id', '=', Number(row.id))
    .execute()
    .catch(() => {});
}

/**
 * Change notifications from Graph: each names its subscription, which names one mailbox; one whose
 * clientState is not that mailbox's (opened with SECRETS_KEY, compared in constant time) is ignored, as is
 * one of a subscription we do not know. The rest become `email.graph_notified` events, committed before the
 * route answers 202, so a notification taken is never lost to a crash; the message is fetched by the
 * relay's listener. Answers how many were taken.
 */
export async function acceptGraphNotifications(deps: GraphInDeps, body: GraphNotificationBody): Promise<number> {
  const byAccount = new Map<number, GraphNotified[]>();
  const wanted = body.value.filter((n) => n.changeType === 'created' && n.resourceData);
  // One read for the whole batch, whatever it names: the subscription id is the only key Graph gives.
  const ids = [...new Set(wanted.map((n) => n.subscriptionId))];
  const rows = new Map<string, MailboxRow>();
  if (ids.length > 0)
    for (const row of await deps.db
      .selectFrom('mailboxes')
      .selectAll()
      .where('kind', '=', 'graph')
      .where('graph_subscription_id', 'in', ids)
      .execute())
      rows.set(row.graph_subscription_id!, row);
  for (const n of wanted) {
    if (!n.resourceData) continue;
    const row = rows.get(n.subscriptionId);
    if (!row || Number(row.active) !== 1) continue;
    const accountId = Number(row.account_id);
    const expected = row.graph_client_state ? deps.secrets?.open(accountId, row.graph_client_state) : null;
    if (!expected || !timingSafeEqual(digest(expected), digest(n.clientState ?? ''))) {
      deps.log.warn({ mailbox: Number(row.id) }, 'microsoft graph notification with a wrong clientState ignored');
      continue;
    }
    byAccount.set(accountId, [
      ...(byAccount.get(accountId) ?? []),
      { mailboxId: Number(row.id), graphId: n.resourceData.id },
    ]);
  }
  let taken = 0;
  for (const [accountId, list] of byAccount) {
    await runCommand(deps.db, (trx) =>
      appendEvents(
        trx,
        accountId,
        list.map((payload) => ({ accountId, type: 'email.graph_notified', payload })),
      ),
    );
    taken += list.length;
  }
  return taken;
}

/**
 * Fetches one message's MIME (`/messages/{id}/$value`) and stores it through the same path as IMAP mail:
 * `parseMail`, then `storeMail` without a fence, kept once by its Message-ID.
 */
export async function storeGraphMessage(deps: GraphInDeps, row: MailboxRow, graphId: string): Promise<StoreOutcome> {
  const app = graphAppOf(row, deps.secrets, Number(row.account_id));
  if (!app) throw new GraphError(400, EMAIL_STRINGS.cannotDecrypt);
  const res = await deps.graph.request(
    app,
    'GET',
    `${userPath(row.address)}/messages/${encodeURIComponent(graphId)}/$value`,
    { download: true },
  );
  const source = Buffer.from(await res.arrayBuffer());
  const mail = await parseMail(source);
  const outcome = await storeMail(deps, graphRef(row), null, mail);
  await deps.db
    .updateTable('mailboxes')
    .set({ last_fetch_at: Date.now(), last_error: null, last_error_at: null })
    .where('account_id', '=', Number(row.account_id))
    .where('id', '=', Number(row.id))
    .execute();
  return outcome;
}

/**
 * The relay's fetcher of notified messages: an unordered effect (it talks to Graph). A message gone meanwhile
 * (404) is done; Graph's trouble (429, 5xx, no answer) is thrown so the relay tries again with its backoff;
 * any other refusal stays on the mailbox row, and the delta poll picks the mail up once it is fixed.
 */
export function fetchGraphMessages(deps: GraphInDeps): Listener {
  return {
    name: 'email.fetchGraphMessage',
    kind: 'effect',
    events: ['email.graph_notified'],
    unordered: true,
    async handle(e) {
      const p = e.payload as GraphNotified;
      const row = await findMailbox(deps.db, e.accountId, p.mailboxId);
      if (!row || row.kind !== 'graph' || Number(row.active) !== 1) return;
      try {
        await storeGraphMessage(deps, row, p.graphId);
      } catch (err) {
        if (err instanceof GraphError && err.status === 404) return;
        await recordGraphError(deps, row, graphWords(err));
        if (!(err instanceof GraphError) || err.transient) throw err;
      }
    },
  };
}

import { randomBytes } from 'node:crypto';
import { EMAIL_STRINGS } from '@parley/contracts';
import type { Task } from '../../platform/scheduler.js';
import { type GraphApp, GraphError, graphAppOf, graphWords, userPath } from './graphClient.js';
import { GRAPH_NOTIFY_PATH, type GraphInDeps, recordGraphError, storeGraphMessage } from './graphInbound.js';
import { findMailbox, type MailboxRow } from './mailboxes.queries.js';
import { idsIn } from './parseMail.js';

export interface GraphSyncDeps extends GraphInDeps {
  nodeId: string;
  /** PUBLIC_URL: where Graph reaches our notification route. Unset: no subscription, the poll only. */
  publicUrl?: string;
  /** How often every graph mailbox's Inbox delta is read (EMAIL_POLL_MS). */
  pollMs: number;
}

/** A subscription is asked for this long (Graph allows messages up to 7 days)... */
const SUBSCRIPTION_MS = 2 * 86_400_000;
/** ...and renewed once less than this is left, so a missed poll or two never lets it lapse. */
const RENEW_BEFORE_MS = 86_400_000;
/** A node holds a mailbox this long for one round of subscription and delta. */
const ROUND_LEASE_MS = 5 * 60_000;
/** Pages of one delta round; the rest waits for the next round, from the link reached. */
const DELTA_PAGES = 50;
/** After the first round, mail already read is still taken when it came in this long before the last fetch. */
const READ_GRACE_MS = 60 * 60_000;

const inboxDelta = (address: string) =>
  `${userPath(address)}/mailFolders('Inbox')/messages/delta?$select=internetMessageId,isRead,receivedDateTime`;

/** Takes the mailbox for one round when it is free, lapsed or this node's; a graph mailbox, active. */
async function acquire(deps: GraphSyncDeps, accountId: number, id: number): Promise<boolean> {
  const at = Date.now();
  const r = await deps.db
    .updateTable('mailboxes')
    .set({ lease_owner: deps.nodeId, lease_until: at + ROUND_LEASE_MS })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('kind', '=', 'graph')
    .where('active', '=', 1)
    .where((eb) => eb.or([eb('lease_until', '<=', at), eb('lease_owner', '=', deps.nodeId)]))
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

async function release(deps: GraphSyncDeps, accountId: number, id: number) {
  await deps.db
    .updateTable('mailboxes')
    .set({ lease_owner: '', lease_until: 0 })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('lease_owner', '=', deps.nodeId)
    .execute();
}

/**
 * The Inbox subscription, made or renewed before it runs out: a new one gets a new clientState (sealed on
 * the row before Graph is asked, so a notification that beats our write of its id is only lost to the delta
 * poll, never taken unchecked). Graph validates the notification URL (our route echoes the token) before it
 * answers. A renewal Graph no longer knows (404) makes a new one.
 */
async function ensureSubscription(deps: GraphSyncDeps, row: MailboxRow, app: GraphApp): Promise<void> {
  const accountId = Number(row.account_id);
  const id = Number(row.id);
  const until = row.graph_subscription_until === null ? 0 : Number(row.graph_subscription_until);
  if (row.graph_subscription_id && until - Date.now() > RENEW_BEFORE_MS) return;
  const expirationDateTime = new Date(Date.now() + SUBSCRIPTION_MS).toISOString();
  const keep = async (subscriptionId: string, expires: string | undefined, clientState?: string) => {
    const parsed = expires ? Date.parse(expires) : Number.NaN;
    await deps.db
      .updateTable('mailboxes')
      .set({
        graph_subscription_id: subscriptionId,
        graph_subscription_until: Number.isNaN(parsed) ? Date.parse(expirationDateTime) : parsed,
        ...(clientState ? { graph_client_state: clientState } : {}),
      })
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .execute();
  };
  if (row.graph_subscription_id) {
    try {
      const res = await deps.graph.request(
        app,
        'PATCH',
        `/subscriptions/${encodeURIComponent(row.graph_subscription_id)}`,
        { json: { expirationDateTime } },
      );
      const body = (await res.json().catch(() => ({}))) as { expirationDateTime?: string };
      return keep(row.graph_subscription_id, body.expirationDateTime);
    } catch (err) {
      if (!(err instanceof GraphError && err.status === 404)) throw err;
    }
  }
  if (!deps.secrets) throw new Error(EMAIL_STRINGS.notConfigured);
  const clientState = randomBytes(32).toString('base64url');
  const sealed = deps.secrets.seal(accountId, clientState);
  await deps.db
    .updateTable('mailboxes')
    .set({ graph_client_state: sealed })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .execute();
  const res = await deps.graph.request(app, 'POST', '/subscriptions', {
    json: {
      changeType: 'created',
      notificationUrl: `${deps.publicUrl!.replace(/\/+$/, '')}${GRAPH_NOTIFY_PATH}`,
      resource: `users/${row.address}/mailFolders('Inbox')/messages`,
      expirationDateTime,
      clientState,
    },
  });
  const body = (await res.json().catch(() => ({}))) as { id?: unknown; expirationDateTime?: string };
  if (typeof body.id !== 'string' || !body.id) throw new GraphError(502, 'Graph made a subscription without an id.');
  await keep(body.id, body.expirationDateTime);
}

interface DeltaItem {
  id?: string;
  internetMessageId?: string;
  isRead?: boolean;
  receivedDateTime?: string;
  '@removed'?: unknown;
}

/**
 * One round of the Inbox's delta: every message not yet stored (by its Message-ID) is fetched and stored.
 * The first round (no delta link yet) takes only the unread ones, like IMAP's first fetch, so years of read
 * mail do not become tickets; later rounds take what is new, read or not. The link reached is kept only after
 * the round's mail is stored: a crash repeats the round, and the Message-ID keeps each mail once.
 */
async function readDelta(deps: GraphSyncDeps, row: MailboxRow, app: GraphApp): Promise<void> {
  const accountId = Number(row.account_id);
  const first = !row.graph_delta_link;
  const since = row.last_fetch_at === null ? 0 : Number(row.last_fetch_at) - READ_GRACE_MS;
  let link = row.graph_delta_link ?? inboxDelta(row.address);
  for (let page = 0; page < DELTA_PAGES; page++) {
    const res = await deps.graph.request(app, 'GET', link);
    const body = (await res.json()) as {
      value?: DeltaItem[];
      '@odata.nextLink'?: string;
      '@odata.deltaLink'?: string;
    };
    for (const m of body.value ?? []) {
      if (!m.id || m['@removed']) continue;
      const received = m.receivedDateTime ? Date.parse(m.receivedDateTime) : Number.NaN;
      const wanted = m.isRead === false || (!first && (Number.isNaN(received) || received >= since));
      if (!wanted) continue;
      const messageId = idsIn(m.internetMessageId)[0];
      if (messageId) {
        const known = await deps.db
          .selectFrom('email_message_ids')
          .select('id')
          .where('account_id', '=', accountId)
          .where('message_id', '=', messageId)
          .executeTakeFirst();
        if (known) continue;
      }
      try {
        await storeGraphMessage(deps, row, m.id);
      } catch (err) {
        if (!(err instanceof GraphError && err.status === 404)) throw err;
      }
    }
    const next = body['@odata.nextLink'] ?? body['@odata.deltaLink'];
    if (!next) break;
    link = next;
    if (!body['@odata.nextLink']) break;
  }
  await deps.db
    .updateTable('mailboxes')
    .set({ graph_delta_link: link, last_fetch_at: Date.now(), last_error: null, last_error_at: null })
    .where('account_id', '=', accountId)
    .where('id', '=', Number(row.id))
    .execute();
}

/**
 * One round for one Microsoft 365 mailbox, on one node at a time (the row's lease): its subscription made
 * or renewed, then its Inbox's delta read. A failure is kept on the row in Graph's words.
 */
export async function syncGraphMailbox(deps: GraphSyncDeps, accountId: number, id: number): Promise<void> {
  if (!(await acquire(deps, accountId, id))) return;
  try {
    const row = await findMailbox(deps.db, accountId, id);
    if (!row) return;
    const app = graphAppOf(row, deps.secrets, accountId);
    if (!app) return void (await recordGraphError(deps, row, EMAIL_STRINGS.cannotDecrypt));
    try {
      if (deps.publicUrl) await ensureSubscription(deps, row, app);
      const fresh = (await findMailbox(deps.db, accountId, id)) ?? row;
      await readDelta(deps, fresh, app);
      if (!deps.publicUrl) await recordGraphError(deps, row, EMAIL_STRINGS.graphNoPublicUrl);
    } catch (err) {
      await recordGraphError(deps, row, graphWords(err));
    }
  } finally {
    await release(deps, accountId, id);
  }
}

/**
 * Microsoft 365 mailboxes on this node: every EMAIL_POLL_MS one node (the scheduler's lease) runs a round for
 * each active graph mailbox; a mailbox saved on this node gets its round at once, so its subscription is
 * made without waiting for the poll.
 */
export class GraphSync {
  private started = false;
  private chain: Promise<void> = Promise.resolve();
  /** Mailboxes in a round on this node: the row's lease is this node's for both, so it is kept here. */
  private readonly busy = new Set<number>();

  constructor(private readonly deps: GraphSyncDeps) {}

  private async round(accountId: number, id: number): Promise<void> {
    if (this.busy.has(id)) return;
    this.busy.add(id);
    try {
      await syncGraphMailbox(this.deps, accountId, id);
    } finally {
      this.busy.delete(id);
    }
  }

  start(): void {
    this.started = !!this.deps.secrets;
  }

  /** A round for this mailbox soon (after one already under way on this node). */
  kick(accountId: number, id: number): void {
    if (!this.started) return;
    this.chain = this.chain.then(() =>
      this.round(accountId, id).catch((err) =>
        this.deps.log.warn({ err: { message: graphWords(err) }, mailbox: id }, 'microsoft 365: round failed'),
      ),
    );
  }

  /**
   * A removed mailbox's subscription is deleted at Graph (best effort, in the background: should it fail,
   * the subscription lapses within 2 days, and its notifications match no row meanwhile).
   */
  unsubscribe(row: MailboxRow): void {
    const subscription = row.graph_subscription_id;
    const app = graphAppOf(row, this.deps.secrets, Number(row.account_id));
    if (!subscription || !app) return;
    this.chain = this.chain.then(() =>
      this.deps.graph
        .request(app, 'DELETE', `/subscriptions/${encodeURIComponent(subscription)}`)
        .then(() => undefined)
        .catch((err) =>
          this.deps.log.warn(
            { err: { message: graphWords(err) }, mailbox: Number(row.id) },
            'microsoft 365: subscription not deleted',
          ),
        ),
    );
  }

  async stop(): Promise<void> {
    this.started = false;
    await this.chain;
  }

  /** The scheduler's task: a round for every active graph mailbox of every account. */
  task(): Task {
    return {
      name: 'syncGraphMailboxes',
      everyMs: this.deps.pollMs,
      run: async () => {
        if (!this.started) return;
        const rows = await this.deps.db
          .selectFrom('mailboxes')
          .select(['id', 'account_id'])
          .where('kind', '=', 'graph')
          .where('active', '=', 1)
          .execute();
        for (const r of rows) {
          if (!this.started) return;
          await this.round(Number(r.account_id), Number(r.id));
        }
      },
    };
  }
}

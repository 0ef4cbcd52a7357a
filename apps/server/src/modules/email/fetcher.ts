import { createRequire } from 'node:module';
import { EMAIL_STRINGS } from '@parley/contracts';
import type * as Imap from 'imapflow';
import type { ImapFlow } from 'imapflow';
import type pino from 'pino';
import type { DB } from '../../platform/db/db.js';
import type { Conversations } from '../messages/index.js';
import {
  batchable,
  type FencedMail,
  type MailboxRef,
  StaleFetch,
  skipMail,
  storeBatch,
  storeMail,
} from './commands/storeMail.js';
import { imapOptions, serverWords } from './connectionTest.js';
import { findMailbox, type MailboxRow } from './mailboxes.queries.js';
import { type InboundMail, parseMail } from './parseMail.js';
import type { Secrets } from './secrets.js';

export interface FetcherDeps {
  db: DB;
  conversations: Conversations;
  dataDir: string;
  nodeId: string;
  log: pino.Logger;
  secrets: Secrets | null;
  /** A poll besides IDLE (EMAIL_POLL_MS). */
  pollMs: number;
  /** How long a node's lease on a mailbox lasts unless renewed (renewed every third of it). */
  leaseMs?: number;
  /** How often the list of active mailboxes is read again (a change on this node refreshes at once). */
  scanMs?: number;
}

const LEASE_MS = 30_000;
const SCAN_MS = 5_000;
/** UIDs fetched in one round; the next round follows at once. */
const ROUND = 200;
/**
 * One FETCH brings the sources of up to this many mails, or this many bytes (a bigger mail comes alone): a
 * round trip per mail cost more than parsing and storing it, and a cap on bytes keeps a round of big mails
 * from being held in memory at once.
 */
const BATCH_MAILS = 50;
const BATCH_BYTES = 4 * 1024 * 1024;
/** Plain mails stored in one transaction at most (SQLite's write lock is held while they are written). */
const STORE_BATCH = 10;
const BACKOFF_MAX_MS = 60_000;

/** The lease went to another node (or the mailbox is gone or off): stop fetching, try to take it again. */
class LeaseLost extends Error {}

/**
 * Fetches one mailbox while this node holds its lease: connects by IMAP, stores every mail after the last
 * UID (exactly once: see `storeMail`), then waits in IDLE for `exists` or the poll, and reconnects with
 * backoff after an error, which it keeps on the mailbox row.
 */
class MailboxFetcher {
  private stopped = false;
  private woken = false;
  private wakeUp: (() => void) | null = null;
  private client: ImapFlow | null = null;
  private readonly done: Promise<void>;

  constructor(
    private readonly deps: FetcherDeps & { leaseMs: number },
    readonly id: number,
    readonly accountId: number,
    readonly version: number,
  ) {
    this.done = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    this.client?.close();
    await this.done;
  }

  private wake() {
    this.woken = true;
    this.wakeUp?.();
  }

  /** Until woken (an `exists`, the poll, a close, stop) or `ms` passed. */
  private async waitWake(ms: number): Promise<void> {
    if (!this.woken)
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, ms);
        this.wakeUp = () => {
          clearTimeout(t);
          resolve();
        };
      });
    this.wakeUp = null;
    this.woken = false;
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      let leased = false;
      try {
        leased = await this.acquire();
      } catch (err) {
        this.deps.log.warn({ err, mailbox: this.id }, 'mailbox lease: database error');
      }
      if (!leased) {
        await this.waitWake(this.deps.leaseMs / 3);
        continue;
      }
      try {
        await this.session();
        failures = 0;
      } catch (err) {
        if (this.stopped) break;
        if (err instanceof LeaseLost || err instanceof StaleFetch) continue;
        failures++;
        await this.recordError(err);
        const backoff = Math.min(BACKOFF_MAX_MS, 1000 * 2 ** (failures - 1));
        await this.waitWake(backoff * (0.75 + Math.random() / 2));
      }
    }
    await this.release().catch(() => {});
  }

  private ref(row: MailboxRow): MailboxRef {
    return {
      id: this.id,
      accountId: this.accountId,
      address: row.address,
      departmentId: row.department_id === null ? null : Number(row.department_id),
    };
  }

  /** Takes the lease when it is free, lapsed or already this node's. */
  private async acquire(): Promise<boolean> {
    const at = Date.now();
    const r = await this.deps.db
      .updateTable('mailboxes')
      .set({ lease_owner: this.deps.nodeId, lease_until: at + this.deps.leaseMs })
      .where('account_id', '=', this.accountId)
      .where('id', '=', this.id)
      .where('active', '=', 1)
      .where((eb) => eb.or([eb('lease_until', '<=', at), eb('lease_owner', '=', this.deps.nodeId)]))
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  private async renew(): Promise<void> {
    const r = await this.deps.db
      .updateTable('mailboxes')
      .set({ lease_until: Date.now() + this.deps.leaseMs })
      .where('account_id', '=', this.accountId)
      .where('id', '=', this.id)
      .where('active', '=', 1)
      .where('lease_owner', '=', this.deps.nodeId)
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) !== 1) throw new LeaseLost();
  }

  /** Lets another node take over at once (a clean stop). */
  private async release(): Promise<void> {
    await this.deps.db
      .updateTable('mailboxes')
      .set({ lease_owner: '', lease_until: 0 })
      .where('account_id', '=', this.accountId)
      .where('id', '=', this.id)
      .where('lease_owner', '=', this.deps.nodeId)
      .execute();
  }

  private async recordError(err: unknown): Promise<void> {
    const words = serverWords(err);
    this.deps.log.warn({ mailbox: this.id, error: words }, 'mailbox fetch failed');
    await this.deps.db
      .updateTable('mailboxes')
      .set({ last_error: words, last_error_at: Date.now() })
      .where('account_id', '=', this.accountId)
      .where('id', '=', this.id)
      .execute()
      .catch(() => {});
  }

  /** One connection: sync, then IDLE and poll until an error, a lost lease or stop. */
  private async session(): Promise<void> {
    const row = await findMailbox(this.deps.db, this.accountId, this.id);
    if (!row || Number(row.active) !== 1) throw new LeaseLost();
    const password = this.deps.secrets?.open(this.accountId, row.imap_secret) ?? null;
    if (password === null) throw new Error(EMAIL_STRINGS.cannotDecrypt);
    // IDLE a quarter second after the last command (imapflow waits 15 s by default), so new mail is
    // announced at once; restarted every 5 minutes, well inside the servers' 29-minute limit.
    // Loaded with the first mailbox: imapflow adds ~30 MB to a server without one.
    const { ImapFlow: Client } = createRequire(import.meta.url)('imapflow') as typeof Imap;
    const client = new Client({ ...imapOptions(row, password), autoIdleDelay: 250, maxIdleTime: 5 * 60_000 });
    this.client = client;
    let failure: unknown = null;
    let closed = false;
    client.on('error', (err) => {
      failure = err;
    });
    client.on('close', () => {
      closed = true;
      this.wake();
    });
    client.on('exists', () => this.wake());
    let lost: unknown = null;
    const renewal = setInterval(() => {
      this.renew().catch((err) => {
        lost = err instanceof LeaseLost ? err : new LeaseLost();
        this.wake();
      });
    }, this.deps.leaseMs / 3);
    const poll = setInterval(() => this.wake(), this.deps.pollMs);
    try {
      if (this.stopped) return;
      await client.connect();
      await client.mailboxOpen('INBOX');
      while (!this.stopped && !closed && !lost) {
        // Drained: a full round goes again at once, else wait for news.
        if (!(await this.sync(client, row))) await this.waitWake(this.deps.pollMs);
      }
      if (lost) throw lost;
      if (closed && !this.stopped) throw failure ?? new Error('The IMAP server closed the connection.');
    } finally {
      clearInterval(renewal);
      clearInterval(poll);
      this.client = null;
      client.close();
    }
  }

  /** Stores what is new; true when a full round was taken (more may wait). */
  private async sync(client: ImapFlow, row: MailboxRow): Promise<boolean> {
    const mailbox = client.mailbox;
    if (!mailbox) throw new Error('INBOX is not open.');
    const validity = String(mailbox.uidValidity);
    const state = await this.deps.db
      .selectFrom('mailboxes')
      .select(['uid_validity', 'last_uid'])
      .where('account_id', '=', this.accountId)
      .where('id', '=', this.id)
      .executeTakeFirst();
    if (!state) throw new LeaseLost();
    if (state.uid_validity !== validity) return this.restart(client, row, validity, mailbox.uidNext);
    const last = Number(state.last_uid);
    const found = (await client.search({ uid: `${last + 1}:*` }, { uid: true })) || [];
    // `n:*` always names the newest mail, even when its UID is below n.
    const uids = found.filter((u) => u > last).sort((a, b) => a - b);
    await this.take(client, row, validity, uids.slice(0, ROUND));
    if (uids.length === 0) await this.touch();
    return uids.length > ROUND;
  }

  /**
   * A first fetch, or a new UIDVALIDITY (the server renumbered the mailbox): the count starts again, the
   * mails not yet read are taken (a Message-ID already stored is skipped), then the count jumps to the
   * newest UID known at the open, so old read mail does not become tickets.
   */
  private async restart(client: ImapFlow, row: MailboxRow, validity: string, uidNext: number): Promise<boolean> {
    const r = await this.deps.db
      .updateTable('mailboxes')
      .set({ uid_validity: validity, last_uid: 0 })
      .where('account_id', '=', this.accountId)
      .where('id', '=', this.id)
      .where('lease_owner', '=', this.deps.nodeId)
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) !== 1) throw new LeaseLost();
    const unseen = ((await client.search({ seen: false }, { uid: true })) || [])
      .filter((u) => u < uidNext)
      .sort((a, b) => a - b);
    for (let at = 0; at < unseen.length; at += ROUND)
      await this.take(client, row, validity, unseen.slice(at, at + ROUND));
    if (uidNext > 1)
      await this.deps.db
        .updateTable('mailboxes')
        .set({ last_uid: uidNext - 1, last_fetch_at: Date.now(), last_error: null, last_error_at: null })
        .where('account_id', '=', this.accountId)
        .where('id', '=', this.id)
        .where('lease_owner', '=', this.deps.nodeId)
        .where('last_uid', '<', uidNext - 1)
        .execute();
    return true;
  }

  /** A fetch that found nothing new still says the mailbox works. */
  private async touch(): Promise<void> {
    await this.deps.db
      .updateTable('mailboxes')
      .set({ last_fetch_at: Date.now(), last_error: null, last_error_at: null })
      .where('account_id', '=', this.accountId)
      .where('id', '=', this.id)
      .where('lease_owner', '=', this.deps.nodeId)
      .execute();
  }

  /**
   * Stores the mails of these UIDs (ascending) in order: their sizes first, then their sources in batches
   * of at most BATCH_MAILS mails and BATCH_BYTES bytes, one FETCH each.
   */
  private async take(client: ImapFlow, row: MailboxRow, validity: string, uids: number[]): Promise<void> {
    if (uids.length === 0) return;
    const sizes = new Map<number, number>();
    for await (const m of client.fetch(uids.join(','), { uid: true, size: true }, { uid: true }))
      sizes.set(m.uid, m.size ?? 0);
    let at = 0;
    while (at < uids.length) {
      const batch: number[] = [];
      let bytes = 0;
      for (; at < uids.length && batch.length < BATCH_MAILS; at++) {
        const size = sizes.get(uids[at]!) ?? 0;
        if (batch.length > 0 && bytes + size > BATCH_BYTES) break;
        batch.push(uids[at]!);
        bytes += size;
      }
      if (this.stopped) throw new LeaseLost();
      const sources = new Map<number, Buffer>();
      // Gathered before any is stored: no other IMAP command may run while a FETCH is answered.
      for await (const m of client.fetch(batch.join(','), { uid: true, source: true }, { uid: true }))
        if (m.source) sources.set(m.uid, m.source);
      // The account's own addresses, read once a batch (a mailbox added meanwhile counts from the next).
      const own = await this.ownAddresses();
      const pending: FencedMail[] = [];
      const flush = async () => {
        if (pending.length > 0) await storeBatch(this.deps, this.ref(row), pending.splice(0));
      };
      for (const uid of batch) {
        if (this.stopped) throw new LeaseLost();
        const source = sources.get(uid) ?? null;
        sources.delete(uid);
        const fence = { nodeId: this.deps.nodeId, uidValidity: validity, uid };
        let mail: InboundMail | null = null;
        let unreadable: unknown = null;
        if (source)
          try {
            mail = await parseMail(source);
          } catch (err) {
            unreadable = err;
          }
        if (mail && !mail.noise && mail.from && own.has(mail.from.address.toLowerCase())) mail.noise = 'own_mailbox';
        // Plain mails are stored several to a transaction; anything else alone, in UID order after them.
        if (mail && batchable(mail)) {
          pending.push({ fence, mail });
          if (pending.length >= STORE_BATCH) await flush();
          continue;
        }
        await flush();
        const box = this.ref(row);
        // Expunged since the search: nothing to store.
        if (!source) await skipMail(this.deps.db, box, fence);
        else if (!mail) {
          // A mail that cannot be parsed at all must not hold up the mailbox: it is passed over and said so,
          // in that order (moving the UID clears the row's error, so the error is kept after it).
          await skipMail(this.deps.db, box, fence);
          await this.recordError(new Error(`Mail UID ${uid} could not be read: ${serverWords(unreadable)}`));
        } else await storeMail(this.deps, box, fence, mail);
      }
      await flush();
    }
  }

  /**
   * The account's own mailbox addresses (lowercase): a mail from one (another mailbox's auto-reply or
   * forward) is noise, so two mailboxes that answer each other automatically cannot make a ticket per round.
   */
  private async ownAddresses(): Promise<Set<string>> {
    const rows = await this.deps.db
      .selectFrom('mailboxes')
      .select('address_lower')
      .where('account_id', '=', this.accountId)
      .execute();
    return new Set(rows.map((r) => r.address_lower));
  }
}

/**
 * The fetchers of this node: one per active mailbox of every account (the node's work list; each fetcher's
 * own reads and writes name its account), each fetching only while it holds the mailbox's lease, so any
 * number of nodes fetch every mailbox exactly once. Started with the app's background work.
 */
export class EmailFetchers {
  private readonly fetchers = new Map<number, MailboxFetcher>();
  private timer: NodeJS.Timeout | null = null;
  private started = false;
  private scanning: Promise<void> = Promise.resolve();

  constructor(private readonly deps: FetcherDeps) {}

  start(): void {
    if (this.started) return;
    this.started = true;
    if (!this.deps.secrets) {
      this.deps.log.info('e-mail: SECRETS_KEY is not set, no mailbox is fetched');
      return;
    }
    this.refresh();
    this.timer = setInterval(() => this.refresh(), this.deps.scanMs ?? SCAN_MS);
  }

  /** Reads the active mailboxes again (after a change on this node: at once). */
  refresh(): void {
    if (!this.started || !this.deps.secrets) return;
    this.scanning = this.scanning.then(() =>
      this.scan().catch((err) => this.deps.log.warn({ err }, 'e-mail: scan failed')),
    );
  }

  private async scan(): Promise<void> {
    if (!this.started) return;
    const rows = await this.deps.db
      .selectFrom('mailboxes')
      .select(['id', 'account_id', 'updated_at'])
      .where('active', '=', 1)
      // A Microsoft 365 mailbox is read through Graph (graphSync.ts), never by IMAP.
      .where('kind', '=', 'imap')
      .execute();
    const seen = new Set<number>();
    for (const r of rows) {
      const id = Number(r.id);
      seen.add(id);
      const current = this.fetchers.get(id);
      if (current && current.version === Number(r.updated_at)) continue;
      // A changed mailbox starts again with its new settings.
      if (current) await current.stop();
      if (!this.started) return;
      this.fetchers.set(
        id,
        new MailboxFetcher(
          { ...this.deps, leaseMs: this.deps.leaseMs ?? LEASE_MS },
          id,
          Number(r.account_id),
          Number(r.updated_at),
        ),
      );
    }
    for (const [id, f] of this.fetchers)
      if (!seen.has(id)) {
        this.fetchers.delete(id);
        await f.stop();
      }
  }

  /** Stops every fetcher (each finishes the mail it is storing and releases its lease). */
  async stop(): Promise<void> {
    this.started = false;
    if (this.timer) clearInterval(this.timer);
    await this.scanning;
    await Promise.all([...this.fetchers.values()].map((f) => f.stop()));
    this.fetchers.clear();
  }
}

import { newQueueId, SeqTracker } from '@parley/contracts';
import { sql } from 'kysely';
import { io, type Socket } from 'socket.io-client';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../platform/db/db.js';
import { apiClient, signInVia } from '../../testing/api.js';
import { crashNode, type Node, startNode, stopAllNodes } from '../../testing/nodes.js';
import { createWorkspaceVia, freshPostgres, tempDir } from '../../testing/support.js';
import { waitFor } from '../../testing/waitFor.js';

/*
 * "tests that prove nothing is lost": 20 clients send 500 messages each into shared tickets
 * while their sockets are dropped at random and the server is killed (SIGKILL) twice. Afterwards the
 * database holds exactly 10,000 messages, none twice, and every client's view equals the database.
 *
 * A client here does what the web app does: it sends with a `queue-` id and retries the same id until it
 * gets an ack; it applies `newMessage` events, deduplicated by sequence, and reconnects with the last
 * sequence it applied so the server's catch-up sends what it missed. It never reloads a conversation.
 */
const CLIENTS = Number(process.env.NOTHING_LOST_CLIENTS ?? 20);
const PER_CLIENT = Number(process.env.NOTHING_LOST_PER_CLIENT ?? 500);
const TICKETS = 4;
const TOTAL = CLIENTS * PER_CLIENT;

type CatchUp = { events: { name: string; seq: number; data: Shown }[]; head: number; complete: boolean };

interface Shown {
  id: number;
  ticketId: number;
  client_id: string | null;
}

class Client {
  socket: Socket;
  /**
   * No window: the web app's tracker refuses events over 5,000 behind the newest because a cut-short catch-up
   * reloads its views (resync); this client keeps no history to reload, so a client that fell that far behind
   * (a loaded machine) would drop the older events of its catch-up and report them missing.
   */
  seqs = new SeqTracker(Number.MAX_SAFE_INTEGER);
  /** ticket -> message id -> message, as this client would show it. */
  view = new Map<number, Map<number, Shown>>();
  sent = 0;
  incomplete = 0;
  gapFills = 0;
  private gapTimer: NodeJS.Timeout | null = null;

  constructor(
    readonly n: number,
    readonly url: string,
    readonly token: string,
  ) {
    this.socket = io(url, {
      transports: ['websocket'],
      auth: (cb) => {
        const from = this.seqs.resumeFrom();
        cb(from === undefined ? { token } : { token, lastSeq: from });
      },
      reconnectionDelay: 100,
      reconnectionDelayMax: 500,
      randomizationFactor: 0.5,
    });
    this.socket.on('newMessage', (e: { seq: number; data: Shown }) => {
      this.apply(e.seq, e.data);
      if (this.seqs.hasGap()) this.scheduleGapFill();
    });
    this.socket.onAny((name: string, e: { seq?: number }) => {
      // Other events count too: they move the sequence like messages do.
      if (name !== 'newMessage' && name !== 'catchUp' && typeof e?.seq === 'number') this.seqs.accept(e.seq);
    });
    this.socket.on('catchUp', (c: CatchUp) => this.catchUp(c));
    this.ready = new Promise((resolve) => this.socket.once('catchUp', () => resolve()));
  }
  /** The first catch-up came: from here on this client sees every message (it never loads history). */
  ready: Promise<void>;

  /**
   * The same handling as the web app's RealtimeClient: apply, confirm the head, or count a cut-short one.
   * Only a reconnect's catch-up counts as cut short: a gap fill pages by design (1,000 events a page), and
   * a fast server makes more than that between two fills.
   */
  catchUp(c: CatchUp, via: 'socket' | 'gap fill' = 'socket') {
    if (!c.complete && via === 'socket') this.incomplete++;
    for (const e of c.events) if (e.name === 'newMessage') this.apply(e.seq, e.data);
    this.seqs.caughtUp(c.head);
  }

  scheduleGapFill() {
    if (this.gapTimer) return;
    // The client's own behaviour, not a wait of the test: like the web app it gives a gap a second to fill.
    this.gapTimer = setTimeout(async () => {
      this.gapTimer = null;
      const after = this.seqs.resumeFrom();
      if (after === undefined || !this.seqs.hasGap()) return;
      try {
        const res = await fetch(`${this.url}/api/events?after=${after}`, {
          headers: { authorization: `Bearer ${this.token}` },
        });
        if (res.ok) {
          this.gapFills++;
          this.catchUp((await res.json()) as CatchUp, 'gap fill');
        }
      } catch {
        // the node is down: the reconnect's catch-up does the same
      }
      if (this.seqs.hasGap()) this.scheduleGapFill();
    }, 1000);
  }

  apply(seq: number, m: Shown) {
    if (!this.seqs.accept(seq)) return;
    let t = this.view.get(m.ticketId);
    if (!t) {
      t = new Map();
      this.view.set(m.ticketId, t);
    }
    t.set(m.id, { id: m.id, ticketId: m.ticketId, client_id: m.client_id });
  }

  close() {
    if (this.gapTimer) clearTimeout(this.gapTimer);
    this.socket.disconnect();
  }

  /** The view as a user reads it: each conversation in message order. */
  ordered() {
    return [...this.view.entries()]
      .sort(([a], [b]) => a - b)
      .map(([ticketId, msgs]) => [ticketId, [...msgs.keys()].sort((a, b) => a - b)] as const);
  }

  async sendAll(tickets: number[], stop: () => boolean) {
    for (let i = 0; i < PER_CLIENT && !stop(); i++) {
      const body = {
        ticket_id: tickets[(this.n + i) % tickets.length]!,
        message: `client ${this.n} message ${i}`,
        client_id: newQueueId(),
      };
      // Retry the same queue- id until the server acks it: through drops, restarts and lost acks.
      for (;;) {
        if (stop()) return;
        if (!this.socket.connected) {
          await waitFor(() => this.socket.connected || stop(), `client ${this.n} to reconnect`, RUN_MS);
          continue;
        }
        try {
          const ack = await this.socket.timeout(4000).emitWithAck('newChatMessage', body);
          if (ack.ok) break;
        } catch {
          // no ack in time: the server may or may not have stored it; the same id decides
        }
        // The client's own retry pace, as the web app's queue has: a refusing node is not hammered.
        await new Promise((r) => setTimeout(r, 50));
      }
      this.sent++;
    }
  }
}

async function runScenario(o: {
  nodes: Node[];
  restart: (node: Node) => Promise<Node>;
  dbOpts: { databaseUrl?: string; dataDir: string };
  pagedCatchUpAllowed?: boolean;
}) {
  let nodes = o.nodes;
  const first = nodes[0]!;
  const admin = await createWorkspaceVia(first.url);
  const call = apiClient(first.url);
  const accountId: number = (await call('POST', '/api/auth/check', { token: admin.token })).body.accountId;
  const tokens: string[] = [];
  for (let i = 0; i < CLIENTS; i++) {
    const r = await signInVia(call, admin.username, admin.password);
    expect(r.status, r.text).toBe(200);
    tokens.push(r.body.token);
  }
  const handle = openDatabase(o.dbOpts);
  try {
    const at = Date.now();
    const tickets: number[] = [];
    for (let i = 0; i < TICKETS; i++) {
      const row = await handle.db
        .insertInto('tickets')
        .values({
          account_id: accountId,
          ticket_number: i + 1,
          title: `Shared ${i}`,
          channel: 'EMAIL',
          closed: 0,
          priority: '',
          label: '[]',
          department_id: null,
          assignee: '',
          name: '',
          email: '',
          phone: '',
          created_at: at,
          updated_at: at,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      tickets.push(Number(row.id));
    }

    const clients = tokens.map((t, i) => new Client(i, nodes[i % nodes.length]!.url, t));
    // A client that connected after the first sends would start from a later head: the web app loads the
    // history over HTTP for that, this client does not, so everyone is connected before anyone sends.
    await Promise.all(clients.map((c) => c.ready));
    let failed: Error | null = null;
    const stop = () => failed !== null;
    const sending = Promise.all(clients.map((c) => c.sendAll(tickets, stop)));
    const sentNow = () => clients.reduce((n, c) => n + c.sent, 0);

    // Chaos: drop a random client's socket every ~100 ms; it reconnects 50-500 ms later. These timers are the
    // scenario's disruption schedule, not waits: no assertion depends on when they fire.
    let chaos = true;
    const drops = (async () => {
      let n = 0;
      while (chaos) {
        await new Promise((r) => setTimeout(r, 60 + Math.random() * 80));
        const c = clients[Math.floor(Math.random() * clients.length)]!;
        if (c.socket.connected) {
          c.socket.disconnect();
          n++;
          setTimeout(() => c.socket.connect(), 50 + Math.random() * 450);
        }
      }
      return n;
    })();

    // Two SIGKILLs of a node (the first, then the last), at a third and two thirds of the sends.
    const kills: number[] = [];
    for (const [fraction, which] of [
      [1 / 3, 0],
      [2 / 3, nodes.length - 1],
    ] as const) {
      await waitFor(
        () => sentNow() >= TOTAL * fraction,
        () => `${TOTAL * fraction} sends (stuck at ${sentNow()})`,
        300_000,
      );
      const victim = nodes[which]!;
      await crashNode(victim);
      kills.push(sentNow());
      const back = await o.restart(victim);
      nodes = nodes.map((n) => (n === victim ? back : n));
    }
    await sending.catch((err) => {
      failed = err;
    });
    chaos = false;
    const dropCount = await drops;
    for (const c of clients) if (!c.socket.connected) c.socket.connect();

    // The database: exactly every message once.
    const rows = await handle.db
      .selectFrom('messages')
      .select(['id', 'ticket_id', 'client_id'])
      .where('account_id', '=', accountId)
      .where('type', '!=', 'system')
      .orderBy('id')
      .execute();
    expect(rows).toHaveLength(TOTAL);
    expect(new Set(rows.map((r) => r.client_id)).size).toBe(TOTAL);
    const expected = tickets.map(
      (t) => [t, rows.filter((r) => Number(r.ticket_id) === t).map((r) => Number(r.id))] as const,
    );

    // Every client's view: the same messages in the same order, through live delivery and catch-up only.
    const complete = () => clients.every((c) => JSON.stringify(c.ordered()) === JSON.stringify(expected));
    // Not complete within the minute: the report below says what is missing. (Each check compares every view.)
    await waitFor(complete, 'every client view complete', 60_000, 100).catch(() => undefined);
    const all = new Set(rows.map((r) => Number(r.id)));
    const report = clients
      .map((c) => {
        const mine = new Set(c.ordered().flatMap(([, ids]) => ids));
        const missing = [...all].filter((id) => !mine.has(id));
        return missing.length
          ? `client ${c.n}: ${missing.length} missing (${missing.slice(0, 5).join(',')}...), incomplete ${c.incomplete}, gap fills ${c.gapFills}, floor ${c.seqs.confirmed}, last ${c.seqs.last}`
          : '';
      })
      .filter(Boolean);
    if (report.length > 0) {
      // What the relay left behind and what the nodes logged: the first things to read when this fails.
      const pending = await handle.db
        .selectFrom('events')
        .select(['seq', 'type', 'attempts', 'last_error', 'lease_owner', 'lease_until', 'delivered_at'])
        .where('account_id', '=', accountId)
        .where((eb) => eb.or([eb('delivered_at', 'is', null), eb('attempts', '>', 0)]))
        .orderBy('seq')
        .limit(20)
        .execute();
      const head = await handle.db
        .selectFrom('account_seq')
        .select('last_seq')
        .where('account_id', '=', accountId)
        .executeTakeFirst();
      report.push(`head ${head?.last_seq}; undelivered or retried: ${JSON.stringify(pending)}`);
      for (const n of nodes) {
        const metrics = await fetch(`${n.url}/metrics`)
          .then((r) => r.text())
          .catch((err: Error) => err.message);
        const relay = metrics.split('\n').filter((l) => l.startsWith('parley_relay'));
        report.push(`${n.name} relay: ${relay.join(' | ')}; logs: ${n.logs().slice(-3000)}`);
      }
      if (o.dbOpts.databaseUrl) {
        const { rows } = await sql<Record<string, unknown>>`
          select pid, state, wait_event_type, wait_event, left(query, 160) as query,
                 extract(epoch from now() - xact_start) as xact_s
          from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`.execute(handle.db);
        report.push(`postgres sessions: ${JSON.stringify(rows)}`);
      }
    }
    expect(report).toEqual([]);
    for (const c of clients) expect(c.ordered(), `client ${c.n}`).toEqual(expected);
    // A client away for longer than CATCH_UP_LIMIT events gets its catch-up cut short and fetches the rest
    // through the gap fill; the view above shows that is lossless. Two nodes: a client of the killed node is
    // away for its whole restart while the other node keeps taking messages, so it happens by design. One
    // node: only when a dropped client stays away for over 5,000 other events, which a loaded machine
    // (CI, 2 cores) sometimes makes happen; there it is allowed only for a few clients.
    const cutShort = clients.filter((c) => c.incomplete > 0).length;
    if (!o.pagedCatchUpAllowed) expect(cutShort, 'clients whose catch-up came in pages').toBeLessThanOrEqual(5);
    for (const c of clients) c.close();
    return { dropCount, kills };
  } finally {
    await handle.close();
  }
}

const RUN_MS = 420_000;

describe('nothing is lost', () => {
  afterAll(async () => {
    await stopAllNodes();
  });

  it(
    'MSG-10 MSG-09 RT-22 RT-01 RT-06 10,000 messages from 20 clients through socket drops and two SIGKILLs (SQLite)',
    async () => {
      const dataDir = tempDir('parley-lost-');
      const env = { RELAY_LEASE_MS: '1000', RELAY_POLL_MS: '50', PRESENCE_GRACE_MS: '0' };
      const node = await startNode('lost-sqlite', env, { dataDir });
      const { dropCount, kills } = await runScenario({
        nodes: [node],
        restart: (n) => startNode(n.name, env, { port: n.port, dataDir: n.dataDir }),
        dbOpts: { dataDir },
      });
      expect(kills).toHaveLength(2);
      expect(dropCount).toBeGreaterThan(10);
    },
    RUN_MS,
  );

  it.runIf(Boolean(process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL))(
    'MSG-10 MSG-09 RT-22 RT-01 RT-06 the same on two nodes over Postgres and Redis, each node killed once',
    async () => {
      const pg = await freshPostgres();
      try {
        const env = {
          DATABASE_URL: pg.url,
          REDIS_URL: process.env.TEST_REDIS_URL!,
          RELAY_LEASE_MS: '1000',
          RELAY_POLL_MS: '50',
          PRESENCE_GRACE_MS: '0',
        };
        const a = await startNode('lost-a', env);
        const b = await startNode('lost-b', env);
        const { kills } = await runScenario({
          nodes: [a, b],
          restart: (n) => startNode(n.name, env, { port: n.port }),
          dbOpts: { databaseUrl: pg.url, dataDir: tempDir() },
          pagedCatchUpAllowed: true,
        });
        expect(kills).toHaveLength(2);
      } finally {
        await stopAllNodes();
        await pg.drop();
      }
    },
    RUN_MS,
  );
});

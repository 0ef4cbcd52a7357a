import { sql } from 'kysely';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { type ManualClock, manualClock } from '../../testing/clock.js';
import { createAccount, type SpineDb, silentLog, spineDatabase } from '../../testing/spine.js';
import { dialects } from '../../testing/support.js';
import { waitFor } from '../../testing/waitFor.js';
import type { Clock } from '../clock.js';
import type { DB, DbHandle } from '../db/db.js';
import {
  appendEvent,
  appendEvents,
  eventsAfter,
  headSeq,
  onCommitted,
  runCommand,
  type StoredEvent,
  type Trx,
} from './outbox.js';
import { HELD_MAX_MS, type Listener, Relay, type RelayOptions } from './relay.js';

const countEvents = async (db: DB, accountId: number) =>
  Number(
    (
      await db
        .selectFrom('events')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('account_id', '=', accountId)
        .executeTakeFirstOrThrow()
    ).n,
  );

const countRows = async (db: DB, table: 'departments' | 'labels', accountId: number) =>
  Number(
    (
      await db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .where('account_id', '=', accountId)
        .executeTakeFirstOrThrow()
    ).n,
  );

const pendingEvents = async (db: DB) =>
  Number(
    (
      await db
        .selectFrom('events')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('delivered_at', 'is', null)
        .executeTakeFirstOrThrow()
    ).n,
  );

const eventRow = (db: DB, id: number) =>
  db.selectFrom('events').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

/** Appends one event of the account in its own command. */
const emit = (db: DB, accountId: number, type = 'test.happened', payload: unknown = {}) =>
  runCommand(db, (trx) => appendEvent(trx, { accountId, type, payload }));

function relay(h: DbHandle, nodeId: string, o: Partial<RelayOptions> = {}): Relay {
  return new Relay({
    db: h.db,
    dialect: h.dialect,
    nodeId,
    leaseMs: 5_000,
    pollMs: 20,
    batch: 50,
    log: silentLog,
    ...o,
  });
}

/** Stops a relay whose clock is moved by hand: a wait for its linger ends only when the clock moves on. */
async function stopOnClock(r: Relay, clock: ManualClock): Promise<void> {
  const stopped = r.stop();
  clock.advance(10 * 60_000);
  await stopped;
}

describe.each(dialects)('SPINE outbox and relay on %s', (dialect) => {
  const opened: SpineDb[] = [];
  const relays: Relay[] = [];
  const fresh = async () => {
    const s = await spineDatabase(dialect);
    opened.push(s);
    return s;
  };
  afterAll(async () => {
    await Promise.all(relays.map((r) => r.stop()));
    await Promise.all(opened.map((s) => s.drop()));
  });

  it('SPINE a command that throws after writing rows leaves no rows, no event and no sequence bump', async () => {
    const s = await fresh();
    const first = await createAccount(s.db, 'No events yet');
    const second = await createAccount(s.db, 'Has an event');
    expect((await emit(s.db, second, 'test.first')).seq).toBe(1);

    const signalled = vi.fn();
    const stopHearing = onCommitted(s.db, signalled);
    try {
      for (const accountId of [first, second]) {
        const head = await headSeq(s.db, accountId);
        const events = await countEvents(s.db, accountId);

        // The command's own code throws after its rows and its event were written.
        let seqInside = 0;
        await expect(
          runCommand(s.db, async (trx) => {
            await trx
              .insertInto('departments')
              .values({ account_id: accountId, name: 'Doomed', created_at: Date.now() })
              .execute();
            seqInside = (await appendEvent(trx, { accountId, type: 'department.created', payload: { n: 1 } })).seq;
            await trx
              .insertInto('labels')
              .values({
                account_id: accountId,
                name: 'Doomed',
                color: '#000',
                color_dark: '#fff',
                level: 0,
                sla: 0,
                removed: 0,
                created_at: Date.now(),
              })
              .execute();
            throw new Error('validation failed late');
          }),
        ).rejects.toThrow('validation failed late');
        expect(seqInside).toBe(head + 1);

        // The database refuses a row after the event was appended (NOT NULL violated).
        await expect(
          runCommand(s.db, async (trx) => {
            await appendEvent(trx, { accountId, type: 'department.created', payload: { n: 2 } });
            await sql`insert into departments (account_id, name, created_at) values (${accountId}, null, 0)`.execute(
              trx,
            );
          }),
        ).rejects.toThrow();

        expect(await countRows(s.db, 'departments', accountId)).toBe(0);
        expect(await countRows(s.db, 'labels', accountId)).toBe(0);
        expect(await countEvents(s.db, accountId)).toBe(events);
        expect(await headSeq(s.db, accountId)).toBe(head);
      }
      // Nothing committed, so the relay was never woken.
      expect(signalled).not.toHaveBeenCalled();

      // The next successful command takes the very next number: the failures left no gap.
      expect((await emit(s.db, first)).seq).toBe(1);
      expect((await emit(s.db, second)).seq).toBe(2);
      expect(signalled).toHaveBeenCalledTimes(2);
    } finally {
      stopHearing();
    }
  });

  it('SPINE commands that run at once: one that throws is rolled back alone, the rest commit with contiguous numbers', async () => {
    const s = await fresh();
    const accountId = await createAccount(s.db, 'Group commit');
    const signalled = vi.fn();
    const stopHearing = onCommitted(s.db, signalled);
    try {
      const results = await Promise.allSettled(
        Array.from({ length: 30 }, (_, i) =>
          runCommand(s.db, async (trx) => {
            await trx
              .insertInto('departments')
              .values({ account_id: accountId, name: `Dept ${i}`, created_at: Date.now() })
              .execute();
            const { seq } = await appendEvent(trx, { accountId, type: 'department.created', payload: { i } });
            if (i === 7) throw new Error('seven fails late');
            if (i === 11) {
              // The database refuses this one's second row after its first row and event were written.
              await sql`insert into departments (account_id, name, created_at) values (${accountId}, null, 0)`.execute(
                trx,
              );
            }
            return seq;
          }),
        ),
      );
      const failed = results.flatMap((r, i) => (r.status === 'rejected' ? [i] : []));
      expect(failed).toEqual([7, 11]);
      expect((results[7] as PromiseRejectedResult).reason).toBeInstanceOf(Error);
      expect(String((results[7] as PromiseRejectedResult).reason)).toContain('seven fails late');

      // Exactly the 28 that succeeded are stored, their events numbered 1..28 without a gap.
      const names = await s.db
        .selectFrom('departments')
        .select('name')
        .where('account_id', '=', accountId)
        .orderBy('id')
        .execute();
      expect(names.map((r) => r.name).sort()).toEqual(
        Array.from({ length: 30 }, (_, i) => i)
          .filter((i) => i !== 7 && i !== 11)
          .map((i) => `Dept ${i}`)
          .sort(),
      );
      const seqs = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : [])).sort((a, b) => a - b);
      expect(seqs).toEqual(Array.from({ length: 28 }, (_, i) => i + 1));
      expect(await countEvents(s.db, accountId)).toBe(28);
      expect(await headSeq(s.db, accountId)).toBe(28);
      expect(signalled).toHaveBeenCalled();
    } finally {
      stopHearing();
    }
  });

  it.runIf(dialect === 'postgres')(
    'SPINE the oldest pending events are found through the pending index after a burst, whatever the statistics say',
    async () => {
      const s = await fresh();
      const accountId = await createAccount(s.db, 'Burst');
      const at = Date.now();
      // A burst: 20,000 events pending when the table is analyzed, then all but 50 delivered.
      await sql`insert into events (account_id, seq, type, payload, socket_event, rooms, created_at, available_at, attempts)
        select ${accountId}, g, 'test.burst', '{}', null, '[]', ${at}, ${at}, 0 from generate_series(1, 20050) g`.execute(
        s.db,
      );
      await sql`analyze events`.execute(s.db);
      await sql`update events set delivered_at = ${at} where account_id = ${accountId} and seq <= 20000`.execute(s.db);
      const { rows } = await sql<{ 'QUERY PLAN': string }>`explain select e.id from events e
        where e.delivered_at is null and e.available_at <= ${at} and (e.lease_until is null or e.lease_until < ${at})
        order by e.id limit 50`.execute(s.db);
      const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
      // Walking the primary key would read all 20,000 delivered rows first.
      expect(plan).toContain('events_pending_id_idx');
      expect(plan).not.toContain('events_pkey');
    },
  );

  it('SPINE per-account sequence numbers are contiguous and independent between two accounts', async () => {
    const s = await fresh();
    const a = await createAccount(s.db, 'A');
    const b = await createAccount(s.db, 'B');
    const expected = new Map<number, number>([
      [a, 0],
      [b, 0],
    ]);

    // 60 concurrent commands over both accounts: some append two events, some fail after appending.
    const jobs = Array.from({ length: 60 }, (_, i) => {
      const accountId = i % 3 === 0 ? b : a;
      const events = i % 4 === 0 ? 2 : 1;
      const fails = i % 7 === 3;
      if (!fails) expected.set(accountId, expected.get(accountId)! + events);
      return runCommand(s.db, async (trx) => {
        for (let k = 0; k < events; k++) {
          await appendEvent(trx, { accountId, type: 'test.counted', payload: { i, k } });
          // The transaction stays open for a few turns of the event loop, so the commands overlap.
          for (let turn = 0; turn < i % 5; turn++) await new Promise((r) => setImmediate(r));
        }
        if (fails) throw new Error(`command ${i} fails`);
      }).catch((err: Error) => {
        if (!fails) throw err;
      });
    });
    await Promise.all(jobs);

    for (const accountId of [a, b]) {
      const n = expected.get(accountId)!;
      expect(n).toBeGreaterThan(10);
      const events = await eventsAfter(s.db, accountId, 0, 1000);
      expect(events.map((e) => e.seq)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
      expect(events.every((e) => e.accountId === accountId)).toBe(true);
      expect(await headSeq(s.db, accountId)).toBe(n);
      // The sequence follows commit order: ids, handed out as rows are written, rise with seq.
      const ids = events.map((e) => e.id);
      expect(ids).toEqual([...ids].sort((x, y) => x - y));
      // The catch-up read returns exactly what came after a given sequence number.
      expect((await eventsAfter(s.db, accountId, n - 3, 1000)).map((e) => e.seq)).toEqual([n - 2, n - 1, n]);
      expect(await eventsAfter(s.db, accountId, n, 1000)).toEqual([]);
    }
    // The payload and the realtime routing survive the round trip.
    const { seq } = await runCommand(s.db, (trx) =>
      appendEvent(trx, {
        accountId: a,
        type: 'test.routed',
        payload: { text: 'héllo', list: [1, 2] },
        realtime: { name: 'routed', rooms: ['account:1', 'user:2'] },
      }),
    );
    const [routed] = await eventsAfter(s.db, a, seq - 1, 1);
    expect(routed).toMatchObject({
      seq,
      type: 'test.routed',
      payload: { text: 'héllo', list: [1, 2] },
      socketEvent: 'routed',
      rooms: ['account:1', 'user:2'],
      attempts: 0,
    });
  });

  it('SPINE a transactional listener runs exactly once per event with two relays competing on one database', async () => {
    const s = await fresh();
    // Two nodes: on Postgres two connection pools. SQLite is single-node and one process holds one
    // connection; a second connection in the same process would block the event loop on SQLite's lock,
    // so both relays share it (as two relays of one node would).
    const other = dialect === 'postgres' ? s.open() : s;
    const accounts = [await createAccount(s.db, 'A'), await createAccount(s.db, 'B'), await createAccount(s.db, 'C')];

    const effectSeen = new Map<number, number>();
    // Both relays read one clock, which handling an event moves past the lease (their poll timers are the
    // process's own).
    const time = manualClock();
    const leaseMs = 25;
    const listeners = (nodeId: string): Listener[] => [
      {
        name: 'recordDelivery',
        kind: 'transactional',
        events: ['test.competed'],
        async handle(e: StoredEvent, trx) {
          await trx
            .insertInto('audit_log')
            .values({
              account_id: e.accountId,
              user_id: null,
              actor: nodeId,
              action: 'test.delivered',
              detail: String(e.id),
              ip: '',
              created_at: Date.now(),
            })
            .execute();
          // The batch outlasts its lease, so the other relay re-claims events that are still being handled:
          // only the receipt keeps the listener's work from happening twice.
          time.advance(leaseMs);
        },
      },
      {
        name: 'countEffect',
        kind: 'effect',
        events: ['test.competed'],
        async handle(e: StoredEvent) {
          effectSeen.set(e.id, (effectSeen.get(e.id) ?? 0) + 1);
        },
      },
    ];
    const opts = { leaseMs, batch: 10, pollMs: 5, clock: () => time() };
    const one = relay(s, 'node-one', opts);
    const two = relay(other, 'node-two', opts);
    for (const l of listeners('node-one')) one.register(l);
    for (const l of listeners('node-two')) two.register(l);

    const append = async (from: number, to: number) => {
      for (let i = from; i < to; i++) await emit(s.db, accounts[i % 3]!, 'test.competed', { i });
    };
    await append(0, 60);
    relays.push(one, two);
    one.start();
    two.start();
    await append(60, 120);
    await waitFor(
      async () => (await pendingEvents(s.db)) === 0,
      () => 'every event delivered',
      15_000,
    );
    await Promise.all([one.stop(), two.stop()]);

    const ids = (await s.db.selectFrom('events').select('id').execute()).map((r) => Number(r.id));
    expect(ids).toHaveLength(120);
    const runs = await s.db
      .selectFrom('audit_log')
      .select(['detail', 'actor'])
      .where('action', '=', 'test.delivered')
      .execute();
    const perEvent = new Map<number, number>();
    for (const r of runs) perEvent.set(Number(r.detail), (perEvent.get(Number(r.detail)) ?? 0) + 1);
    expect([...perEvent.keys()].sort((x, y) => x - y)).toEqual(ids.sort((x, y) => x - y));
    expect([...perEvent.values()].every((n) => n === 1)).toBe(true);
    const receipts = await s.db
      .selectFrom('event_receipts')
      .select('event_id')
      .where('listener', '=', 'recordDelivery')
      .execute();
    expect(receipts).toHaveLength(120);
    // Effects are at least once: every event was seen, and the lapsed leases really did hand events to
    // both relays (so the receipts above, not luck, kept the transactional work to once).
    expect(ids.every((id) => (effectSeen.get(id) ?? 0) >= 1)).toBe(true);
    expect([...effectSeen.values()].some((n) => n > 1)).toBe(true);
    expect(one.delivered + two.delivered).toBeGreaterThanOrEqual(120);
  });

  it('SPINE with two relays, each account still sees its events in sequence order', async () => {
    const s = await fresh();
    const other = dialect === 'postgres' ? s.open() : s;
    const accounts = [await createAccount(s.db, 'A'), await createAccount(s.db, 'B'), await createAccount(s.db, 'C')];
    const seen = new Map<number, number[]>(accounts.map((a) => [a, []]));
    const byNode = new Map<string, number>();
    const ordered = (nodeId: string): Listener => ({
      name: 'ordered',
      kind: 'effect',
      events: ['test.ordered'],
      async handle(e: StoredEvent) {
        seen.get(e.accountId)!.push(e.seq);
        byNode.set(nodeId, (byNode.get(nodeId) ?? 0) + 1);
        // A turn of the event loop between events: the other relay gets its chance to claim.
        await new Promise((r) => setImmediate(r));
      },
    });
    const opts = { batch: 4, pollMs: 5 };
    const one = relay(s, 'node-one', opts);
    const two = relay(other, 'node-two', opts);
    one.register(ordered('node-one'));
    two.register(ordered('node-two'));
    relays.push(one, two);
    one.start();
    two.start();
    for (let i = 0; i < 90; i++) await emit(s.db, accounts[i % 3]!, 'test.ordered', { i });
    await waitFor(
      async () => (await pendingEvents(s.db)) === 0,
      () => 'every event delivered',
      10_000,
    );
    await Promise.all([one.stop(), two.stop()]);
    for (const a of accounts) expect(seen.get(a)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    if (dialect === 'postgres') expect(byNode.size).toBe(2);
  });

  it('SPINE an effect listener that throws is retried with backoff and then succeeds', async () => {
    const s = await fresh();
    const accountId = await createAccount(s.db);
    const calls = { flaky: [] as number[], before: [] as number[], tx: [] as number[], steady: [] as number[] };
    // The backoff runs on a clock moved by hand: a retry comes when the test moves the time past it. No
    // linger: on this clock it would last until the test moved the time.
    const clock = manualClock();
    const r = relay(s, 'node-retry', { clock, lingerMs: 0 });
    r.register({
      name: 'before',
      kind: 'effect',
      events: '*',
      async handle(e) {
        if (e.type === 'test.flaky') calls.before.push(clock());
      },
    });
    r.register({
      name: 'tx',
      kind: 'transactional',
      events: ['test.flaky'],
      async handle() {
        calls.tx.push(clock());
      },
    });
    r.register({
      name: 'flaky',
      kind: 'effect',
      events: '*',
      async handle(e) {
        if (e.type !== 'test.flaky') {
          calls.steady.push(clock());
          return;
        }
        calls.flaky.push(clock());
        if (calls.flaky.length <= 2) throw new Error(`boom ${calls.flaky.length}`);
      },
    });
    relays.push(r);
    const attempts = async () => (await eventRow(s.db, id)).attempts;

    const { id } = await emit(s.db, accountId, 'test.flaky');
    r.start();
    await waitFor(() => calls.flaky.length === 1, 'the first attempt');
    await waitFor(async () => (await attempts()) === 1, 'the failure recorded');
    const failed = await eventRow(s.db, id);
    expect(failed).toMatchObject({ attempts: 1, delivered_at: null, lease_owner: null, lease_until: null });
    expect(failed.last_error).toBe('flaky: boom 1');
    // Backoff 500 ms * 2^attempts: the first retry is due a second after the failure.
    expect(failed.available_at - calls.flaky[0]!).toBeGreaterThanOrEqual(1_000);
    expect(failed.available_at - calls.flaky[0]!).toBeLessThan(1_500);

    // A failing event does not hold up the account's later events.
    await emit(s.db, accountId, 'test.steady');
    await waitFor(() => calls.steady.length === 1, 'the later event');
    expect(calls.flaky).toHaveLength(1);

    // A second later the retry is due: it fails again, and the next waits two seconds. The clock moves once
    // the relay is done with its batch and waits for its next poll.
    const idle = () => waitFor(() => clock.pending() > 0, 'the relay to wait for its next poll');
    await idle();
    clock.advance(1_000);
    await waitFor(async () => (await attempts()) === 2, 'the second failure recorded');
    await idle();
    clock.advance(2_000);
    await waitFor(async () => (await eventRow(s.db, id)).delivered_at !== null, 'the retries');
    const [t1, t2, t3] = calls.flaky;
    expect(calls.flaky).toHaveLength(3);
    expect(t2! - t1!).toBeGreaterThanOrEqual(1_000);
    expect(t3! - t2!).toBeGreaterThanOrEqual(2_000);
    const done = await eventRow(s.db, id);
    expect(done).toMatchObject({ attempts: 2, lease_owner: null });
    // The listeners that had already succeeded were not run again on the retries.
    expect(calls.before).toHaveLength(1);
    expect(calls.tx).toHaveLength(1);
    await stopOnClock(r, clock);
  });

  it('SPINE after 10 failures an event is marked dead with its last error, and is not retried', async () => {
    const s = await fresh();
    const accountId = await createAccount(s.db);
    let failures = 0;
    let sideEffects = 0;
    // Driven tick by tick (no timers); the backoff is skipped by making the event due again.
    const r = relay(s, 'node-dead');
    r.register({
      name: 'sideEffect',
      kind: 'effect',
      events: '*',
      async handle() {
        sideEffects++;
      },
    });
    r.register({
      name: 'alwaysFails',
      kind: 'effect',
      events: '*',
      async handle() {
        failures++;
        throw new Error(`nope ${failures}`);
      },
    });
    const { id } = await emit(s.db, accountId, 'test.poison');
    const makeDue = () => s.db.updateTable('events').set({ available_at: 0 }).where('id', '=', id).execute();

    for (let attempt = 1; attempt <= 10; attempt++) {
      const before = Date.now();
      expect(await r.tick()).toBe(1);
      const row = await eventRow(s.db, id);
      expect(row.attempts).toBe(attempt);
      expect(row.last_error).toBe(`alwaysFails: nope ${attempt}`);
      expect(row.lease_owner).toBeNull();
      if (attempt < 10) {
        expect(row.delivered_at).toBeNull();
        const backoff = Math.min(60_000, 500 * 2 ** attempt);
        expect(row.available_at).toBeGreaterThanOrEqual(before + backoff);
        expect(row.available_at).toBeLessThanOrEqual(Date.now() + backoff);
        // Not due yet: a tick leaves it alone.
        expect(await r.tick()).toBe(0);
        await makeDue();
      } else {
        // Dead: set aside as delivered, the error kept for an operator.
        expect(row.delivered_at).not.toBeNull();
      }
    }
    await makeDue();
    expect(await r.tick()).toBe(0);
    expect(failures).toBe(10);
    expect(sideEffects).toBe(1);

    // The account's other events still flow.
    await emit(s.db, accountId, 'test.after');
    expect(await r.tick()).toBe(1);
    expect(sideEffects).toBe(2);
  });

  it("SPINE a failing transactional listener holds back only its own event; the batch's other work commits once", async () => {
    const s = await fresh();
    const accountId = await createAccount(s.db);
    const r = relay(s, 'node-tx-fail');
    const audit = (trx: Trx, e: StoredEvent, actor: string) =>
      trx
        .insertInto('audit_log')
        .values({
          account_id: e.accountId,
          user_id: null,
          actor,
          action: 'test.txfail',
          detail: String(e.id),
          ip: '',
          created_at: Date.now(),
        })
        .execute();
    let refuse = true;
    let effects = 0;
    r.register({
      name: 'fanout',
      kind: 'effect',
      events: '*',
      async handle() {
        effects++;
      },
    });
    r.register({
      name: 'writes',
      kind: 'transactional',
      events: '*',
      async handle(e, trx) {
        await audit(trx, e, 'writes');
      },
    });
    r.register({
      name: 'picky',
      kind: 'transactional',
      events: '*',
      async handle(e, trx) {
        await audit(trx, e, 'picky');
        if ((e.payload as { bad?: boolean }).bad && refuse) throw new Error('not this one');
      },
    });
    const a = await emit(s.db, accountId, 'test.ok');
    const bad = await emit(s.db, accountId, 'test.bad', { bad: true });
    const c = await emit(s.db, accountId, 'test.ok');
    const runs = async () =>
      (await s.db.selectFrom('audit_log').select(['actor', 'detail']).where('action', '=', 'test.txfail').execute())
        .map((x) => `${x.actor} ${x.detail}`)
        .sort();

    expect(await r.tick()).toBe(3);
    expect((await eventRow(s.db, a.id)).delivered_at).not.toBeNull();
    expect((await eventRow(s.db, c.id)).delivered_at).not.toBeNull();
    const failed = await eventRow(s.db, bad.id);
    expect(failed).toMatchObject({
      attempts: 1,
      delivered_at: null,
      lease_owner: null,
      last_error: 'picky: not this one',
    });
    // The failing listener's own write went with its rollback; every other listener's work stayed, once.
    expect(await runs()).toEqual(
      [`picky ${a.id}`, `picky ${c.id}`, `writes ${a.id}`, `writes ${bad.id}`, `writes ${c.id}`].sort(),
    );
    expect(effects).toBe(3);

    refuse = false;
    await s.db.updateTable('events').set({ available_at: 0 }).where('id', '=', bad.id).execute();
    expect(await r.tick()).toBe(1);
    expect((await eventRow(s.db, bad.id)).delivered_at).not.toBeNull();
    // The retry ran only what had not succeeded: picky; not writes, not the effect.
    expect(await runs()).toEqual(
      [
        `picky ${a.id}`,
        `picky ${bad.id}`,
        `picky ${c.id}`,
        `writes ${a.id}`,
        `writes ${bad.id}`,
        `writes ${c.id}`,
      ].sort(),
    );
    expect(effects).toBe(3);
    const receipts = await s.db.selectFrom('event_receipts').select(['listener', 'event_id']).execute();
    expect(receipts.filter((x) => x.listener !== 'fanout')).toHaveLength(6);
  });

  it('SPINE a transactional listener that does not want an event writes no receipt and does not run; wanted ones run once', async () => {
    const s = await fresh();
    const accountId = await createAccount(s.db);
    const r = relay(s, 'node-wants');
    const ran: number[] = [];
    r.register({
      name: 'choosy',
      kind: 'transactional',
      events: ['test.maybe'],
      wants: (e) => (e.payload as { yes?: boolean }).yes === true,
      async handle(e) {
        ran.push(e.id);
      },
    });
    const no = await emit(s.db, accountId, 'test.maybe', { yes: false });
    const yes = await emit(s.db, accountId, 'test.maybe', { yes: true });
    expect(await r.tick()).toBe(2);
    expect(ran).toEqual([yes.id]);
    for (const id of [no.id, yes.id]) expect((await eventRow(s.db, id)).delivered_at).not.toBeNull();
    const receipts = await s.db.selectFrom('event_receipts').select(['listener', 'event_id']).execute();
    expect(receipts.map((x) => [x.listener, Number(x.event_id)])).toEqual([['choosy', yes.id]]);
  });

  it('SPINE an event appended by a transactional listener is delivered at once, not at the next poll', async () => {
    const s = await fresh();
    const accountId = await createAccount(s.db);
    const r = relay(s, 'node-chain', { pollMs: 60_000 });
    const seen: string[] = [];
    r.register({
      name: 'chain',
      kind: 'transactional',
      events: ['test.first'],
      async handle(e, trx) {
        await appendEvent(trx, { accountId: e.accountId, type: 'test.second', payload: {} });
      },
    });
    r.register({
      name: 'record',
      kind: 'effect',
      events: '*',
      async handle(e) {
        seen.push(e.type);
      },
    });
    relays.push(r);
    r.start();
    await emit(s.db, accountId, 'test.first');
    // Well within the minute the next poll would take.
    await waitFor(
      () => seen.includes('test.second'),
      () => `the chained event (seen ${seen.join(', ')})`,
    );
    expect(seen).toEqual(['test.first', 'test.second']);
    await r.stop();
  });

  it('SPINE while commands keep committing the relay lingers, so a batch carries several; after a quiet spell it claims at once', async () => {
    const s = await fresh();
    const accountId = await createAccount(s.db);
    // The linger and the poll run on a clock moved by hand, a minute of it a linger: the real time that
    // passes on a loaded machine is nothing beside it.
    const clock = manualClock();
    const lingerMs = 60_000;
    const r = relay(s, 'node-linger', { pollMs: 60 * lingerMs, lingerMs, clock });
    const deliveredAt = new Map<number, number>();
    r.register({
      name: 'record',
      kind: 'effect',
      events: '*',
      async handle(e) {
        deliveredAt.set(e.id, clock());
      },
    });
    relays.push(r);
    r.start();
    const started = clock();
    const ids: number[] = [];
    // Commands commit one after another over two lingers of the clock.
    for (let i = 0; i < 40; i++) {
      ids.push((await emit(s.db, accountId, 'test.steady', { i })).id);
      clock.advance(lingerMs / 20);
    }
    // What came after the last claim goes when the linger after it ends: the clock moves a linger at a time.
    await waitFor(
      () => {
        if (ids.every((id) => deliveredAt.has(id))) return true;
        clock.advance(lingerMs);
        return false;
      },
      () => `${deliveredAt.size} of 40 delivered`,
    );
    const elapsed = clock() - started;
    // Without lingering every command's event is claimed on its own (40 batches).
    expect(r.batches).toBeLessThanOrEqual(Math.min(20, 2 + Math.ceil(elapsed / lingerMs)));
    // Quiet: the linger after the last batch has passed and nothing came. The next event goes out at once,
    // with the clock standing still. (The time moves once the relay, done with its last batch, waits.)
    await waitFor(() => clock.pending() > 0, 'the relay to wait');
    clock.advance(lingerMs * 2);
    const before = r.batches;
    const t = clock();
    const lone = await emit(s.db, accountId, 'test.lone');
    await waitFor(() => deliveredAt.has(lone.id), 'the lone event');
    expect(deliveredAt.get(lone.id)! - t).toBeLessThan(lingerMs);
    expect(r.batches).toBe(before + 1);
    await stopOnClock(r, clock);
  });

  it("SPINE appendEvents gives a command's events consecutive sequence numbers in the order given", async () => {
    const s = await fresh();
    const accountId = await createAccount(s.db);
    await emit(s.db, accountId, 'test.before');
    const out = await runCommand(s.db, (trx) =>
      appendEvents(trx, accountId, [
        { accountId, type: 'test.a', payload: { n: 1 } },
        { accountId, type: 'test.b', payload: { n: 2 } },
        { accountId, type: 'test.c', payload: { n: 3 } },
      ]),
    );
    expect(out.map((x) => x.seq)).toEqual([2, 3, 4]);
    expect((await emit(s.db, accountId, 'test.after')).seq).toBe(5);
    expect((await eventsAfter(s.db, accountId, 0, 10)).map((e) => `${e.seq} ${e.type}`)).toEqual([
      '1 test.before',
      '2 test.a',
      '3 test.b',
      '4 test.c',
      '5 test.after',
    ]);
    const other = await createAccount(s.db);
    await expect(
      runCommand(s.db, (trx) => appendEvents(trx, accountId, [{ accountId: other, type: 'test.x', payload: {} }])),
    ).rejects.toThrow(/another account/);
    expect(await headSeq(s.db, other)).toBe(0);
  });

  it('SPINE unordered effects run on several events at once; one failing holds back only its event', async () => {
    const s = await fresh();
    const accountId = await createAccount(s.db);
    const r = relay(s, 'node-unordered');
    let running = 0;
    let most = 0;
    const ran: number[] = [];
    let refuse = true;
    // A push finishes only once eight are running: one after another, the first would never finish.
    let eightIn = () => {};
    const eightRunning = new Promise<void>((resolve) => {
      eightIn = resolve;
    });
    r.register({
      name: 'slow-push',
      kind: 'effect',
      unordered: true,
      events: '*',
      async handle(e) {
        running++;
        most = Math.max(most, running);
        if (running === 8) eightIn();
        await eightRunning;
        running--;
        if ((e.payload as { bad?: boolean }).bad && refuse) throw new Error('push service down');
        ran.push(e.seq);
      },
    });
    const ordered: number[] = [];
    r.register({
      name: 'fanout',
      kind: 'effect',
      events: '*',
      async handle(e) {
        ordered.push(e.seq);
      },
    });
    const ids: number[] = [];
    for (let i = 0; i < 12; i++) ids.push((await emit(s.db, accountId, 'test.push', { bad: i === 5 })).id);
    expect(await r.tick()).toBe(12);
    // Twelve pushes, several at a time: eight (the relay's limit) were running at once, not one after another.
    expect(most).toBeGreaterThan(1);
    expect(most).toBe(8);
    expect(ordered).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect([...ran].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12]);
    const failed = await eventRow(s.db, ids[5]!);
    expect(failed).toMatchObject({ attempts: 1, delivered_at: null, last_error: 'slow-push: push service down' });
    refuse = false;
    await s.db.updateTable('events').set({ available_at: 0 }).where('id', '=', ids[5]!).execute();
    expect(await r.tick()).toBe(1);
    expect((await eventRow(s.db, ids[5]!)).delivered_at).not.toBeNull();
    // The retry sent the push once more; the ordered effect that had succeeded was not repeated.
    expect(ran.filter((x) => x === 6)).toHaveLength(1);
    expect(ordered.filter((x) => x === 6)).toHaveLength(1);
  });

  it('SPINE a coalescing listener runs once per key in a batch, on the last event; every event gets its receipt', async () => {
    const s = await fresh();
    const accountId = await createAccount(s.db);
    const r = relay(s, 'node-coalesce');
    const runs: string[] = [];
    r.register({
      name: 'sync',
      kind: 'transactional',
      events: ['test.touched'],
      coalesce: (e) => String((e.payload as { ticket: number }).ticket),
      async handle(e) {
        runs.push(`${(e.payload as { ticket: number }).ticket}@${e.seq}`);
      },
    });
    for (const ticket of [1, 2, 1, 1, 2, 3]) await emit(s.db, accountId, 'test.touched', { ticket });
    expect(await r.tick()).toBe(6);
    expect(runs).toEqual(['1@4', '2@5', '3@6']);
    const receipts = await s.db
      .selectFrom('event_receipts')
      .select('event_id')
      .where('listener', '=', 'sync')
      .execute();
    expect(receipts).toHaveLength(6);
    expect(await pendingEvents(s.db)).toBe(0);
  });

  const delivered = (db: DB) =>
    waitFor(
      async () => (await pendingEvents(db)) === 0,
      () => 'every event delivered',
      10_000,
    );

  /** A relay that hears commits, a socket-like immediate effect, and an ordered effect that can be held. */
  async function atCommitRelay(s: SpineDb, nodeId: string, clock?: Clock) {
    const r = relay(s, nodeId, { commits: s.db, lingerMs: 0, clock });
    relays.push(r);
    const sockets: number[] = [];
    const calls = { sockets: 0, blocker: 0 };
    let open: () => void = () => {};
    let gate = Promise.resolve();
    let failOnce = new Set<number>();
    r.register({
      name: 'sockets',
      kind: 'effect',
      immediate: true,
      events: '*',
      async handle(e) {
        calls.sockets++;
        if (failOnce.delete(e.seq)) throw new Error('socket write failed');
        sockets.push(e.seq);
      },
    });
    r.register({
      name: 'blocker',
      kind: 'effect',
      events: ['test.block'],
      async handle() {
        calls.blocker++;
        await gate;
      },
    });
    const accountId = await createAccount(s.db);
    r.start();
    // The first event reaches the sockets through the claim: nothing before it had been fanned out here.
    await emit(s.db, accountId, 'test.first');
    await delivered(s.db);
    expect(sockets).toEqual([1]);
    return {
      r,
      accountId,
      sockets,
      calls,
      /** The relay gets stuck on an ordered effect of the next event, `test.block`. */
      async stuck() {
        gate = new Promise((resolve) => {
          open = resolve;
        });
        await emit(s.db, accountId, 'test.block');
        await waitFor(
          () => calls.blocker === 1,
          () => 'the relay at the blocker',
          5_000,
        );
      },
      open: () => open(),
      failAtCommit: (seq: number) => {
        failOnce = new Set([seq]);
      },
    };
  }

  it('SPINE RT-22 an immediate effect runs when the command commits, while the relay is still busy; the claim does not run it again', async () => {
    const s = await fresh();
    const t = await atCommitRelay(s, 'node-at-commit');
    const { accountId } = t;
    await t.stuck();
    const batches = t.r.batches;
    await emit(s.db, accountId, 'test.third');
    await emit(s.db, accountId, 'test.fourth');
    // Events 3 and 4 reached the sockets with the relay still inside event 2's batch.
    await waitFor(
      () => t.sockets.length === 4,
      () => `sockets ${t.sockets}`,
      5_000,
    );
    expect(t.sockets).toEqual([1, 2, 3, 4]);
    expect(t.r.batches).toBe(batches);
    expect(await pendingEvents(s.db)).toBe(3);

    t.open();
    await delivered(s.db);
    // Every event delivered, each to the sockets once; the ordered effect ran on its event once.
    expect(t.sockets).toEqual([1, 2, 3, 4]);
    expect(t.calls).toEqual({ sockets: 4, blocker: 1 });
    expect(t.r.deliveredAtCommit).toBe(3);
  });

  it('SPINE RT-22 committed events wait for a predecessor that was not fanned out at commit, and leave in sequence order', async () => {
    const s = await fresh();
    const t = await atCommitRelay(s, 'node-in-order');
    const { accountId } = t;
    await t.stuck();
    // Event 3 commits outside a command (as a listener's transaction does): no commit hook hears it.
    await s.db.transaction().execute((trx) => appendEvent(trx, { accountId, type: 'test.quiet', payload: {} }));
    await emit(s.db, accountId, 'test.fourth');
    await emit(s.db, accountId, 'test.fifth');
    // The commit hooks decide before a command returns: 4 and 5 wait for 3, which only the claim will deliver.
    expect(t.sockets).toEqual([1, 2]);

    t.open();
    await delivered(s.db);
    expect(t.sockets).toEqual([1, 2, 3, 4, 5]);
    expect(t.calls.sockets).toBe(5);
  });

  it('SPINE RT-22 an immediate effect that fails at commit is run again by the claim', async () => {
    const s = await fresh();
    const t = await atCommitRelay(s, 'node-fail-at-commit');
    const { accountId } = t;
    t.failAtCommit(2);
    await emit(s.db, accountId, 'test.second');
    await emit(s.db, accountId, 'test.third');
    await delivered(s.db);
    expect(t.sockets.filter((x) => x === 2)).toHaveLength(1);
    expect([...t.sockets].sort((a, b) => a - b)).toEqual([1, 2, 3]);
    expect(t.calls.sockets).toBe(4);
    const receipts = await s.db
      .selectFrom('event_receipts')
      .select('event_id')
      .where('listener', '=', 'sockets')
      .execute();
    expect(receipts).toHaveLength(0);
  });

  it('SPINE RT-22 committed events waiting for a predecessor another node delivers are let go, then delivered by the claim', async () => {
    const s = await fresh();
    // Held events are let go by the time on this clock, moved by hand (the relay polls on the process's timers).
    const time = manualClock();
    const t = await atCommitRelay(s, 'node-lets-go', () => time());
    const { accountId } = t;
    // Event 2 is committed and leased by another node; this node never sees it fanned out. The lease is
    // taken in the same transaction, so this node's poll never finds it free in between.
    const two = await s.db.transaction().execute(async (trx) => {
      const e = await appendEvent(trx, { accountId, type: 'test.elsewhere', payload: {} });
      await trx
        .updateTable('events')
        .set({ lease_owner: 'other-node', lease_until: Date.now() + 60_000 })
        .where('id', '=', e.id)
        .execute();
      return e;
    });
    await emit(s.db, accountId, 'test.third');
    await emit(s.db, accountId, 'test.fourth');
    expect(t.r.waitingForPredecessor).toBe(2);
    // This node's claims find nothing (the other node holds the account), yet once they have waited long
    // enough it lets go of them.
    time.advance(HELD_MAX_MS);
    await waitFor(
      () => t.r.waitingForPredecessor === 0,
      () => `${t.r.waitingForPredecessor} still waiting`,
    );
    expect(t.sockets).toEqual([1]);
    // The other node's lease lapses: the claim delivers 2, 3 and 4 here, in order, once each.
    await s.db.updateTable('events').set({ lease_until: 0 }).where('id', '=', two.id).execute();
    await delivered(s.db);
    expect(t.sockets).toEqual([1, 2, 3, 4]);
  });

  it('SPINE a relay hears only the commits of its own database handle', async () => {
    const s = await fresh();
    const other = await fresh();
    const otherAccount = await createAccount(other.db);
    const t = await atCommitRelay(s, 'node-own-db');
    const { accountId } = t;
    await emit(other.db, otherAccount, 'test.elsewhere');
    await emit(s.db, accountId, 'test.second');
    await delivered(s.db);
    expect(t.sockets).toEqual([1, 2]);
    expect(t.calls.sockets).toBe(2);
  });
});

describe.skipIf(!dialects.includes('postgres'))('SPINE a command chosen as a deadlock victim (postgres)', () => {
  it('SPINE two commands locking two rows in opposite order both commit: the victim runs again, once', async () => {
    const s = await spineDatabase('postgres');
    try {
      const accountId = await createAccount(s.db, 'Deadlocks');
      const row = async (name: string) =>
        Number(
          (
            await s.db
              .insertInto('departments')
              .values({ account_id: accountId, name, created_at: Date.now() })
              .returning('id')
              .executeTakeFirstOrThrow()
          ).id,
        );
      const a = await row('A');
      const b = await row('B');
      // Each command locks its first row, waits until the other has locked its own, then asks for the other's:
      // a deadlock on the first run, which Postgres ends by rolling one of them back.
      let locked = 0;
      const bothLocked = () => waitFor(() => locked >= 2, 'both first locks', 5_000, 5);
      const runs = { ab: 0, ba: 0 };
      const command = (first: number, second: number, key: 'ab' | 'ba') =>
        runCommand(s.db, async (trx) => {
          runs[key] += 1;
          await trx
            .updateTable('departments')
            .set({ name: `${key} first` })
            .where('id', '=', first)
            .execute();
          if (runs[key] === 1) {
            locked += 1;
            await bothLocked();
          }
          await trx
            .updateTable('departments')
            .set({ name: `${key} second` })
            .where('id', '=', second)
            .execute();
          await appendEvent(trx, { accountId, type: 'test.deadlock', payload: { key } });
          return key;
        });
      expect((await Promise.all([command(a, b, 'ab'), command(b, a, 'ba')])).sort()).toEqual(['ab', 'ba']);
      // One of them was the victim and ran twice; the other ran once. Both events were committed, once each.
      expect([runs.ab, runs.ba].sort()).toEqual([1, 2]);
      const events = await s.db
        .selectFrom('events')
        .select('payload')
        .where('account_id', '=', accountId)
        .where('type', '=', 'test.deadlock')
        .execute();
      expect(events.map((e) => JSON.parse(e.payload).key).sort()).toEqual(['ab', 'ba']);
    } finally {
      await s.drop();
    }
  });
});

import { TicketLoadAnswer } from '@parley/contracts';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../migrations/index.js';
import type { DB } from '../../platform/db/db.js';
import { apiClient, type Call, type SignedUp, signUpVia, uniq } from '../../testing/api.js';
import { dialects, startTestServer } from '../../testing/support.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;

/** What `ticket_counts` must hold for an account: a real count(*) per status, channel and department. */
async function realCounts(db: DB, accountId: number) {
  const rows = await db
    .selectFrom('tickets')
    .select(['closed', 'channel', sql<number>`coalesce(department_id, 0)`.as('department_id')])
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .groupBy(['closed', 'channel', sql`coalesce(department_id, 0)`])
    .execute();
  return rows.map((r) => `${r.closed}|${r.channel}|${r.department_id}|${Number(r.n)}`).sort();
}
async function counters(db: DB, accountId: number) {
  const rows = await db.selectFrom('ticket_counts').selectAll().where('account_id', '=', accountId).execute();
  return rows
    .filter((r) => Number(r.n) !== 0)
    .map((r) => `${r.closed}|${r.channel}|${r.department_id}|${Number(r.n)}`)
    .sort();
}
/** What `ticket_labels` must hold: one row per label id in each ticket's JSON, with the ticket's columns. */
async function expectedLabelRows(db: DB, accountId: number) {
  const tickets = await db.selectFrom('tickets').selectAll().where('account_id', '=', accountId).execute();
  return tickets
    .flatMap((t) =>
      [...new Set(JSON.parse(t.label) as number[])].map(
        (l) => `${t.id}|${l}|${t.closed}|${t.channel}|${t.department_id}|${t.created_at}|${t.updated_at}`,
      ),
    )
    .sort();
}
async function labelRows(db: DB, accountId: number) {
  const rows = await db.selectFrom('ticket_labels').selectAll().where('account_id', '=', accountId).execute();
  return rows
    .map(
      (r) =>
        `${r.ticket_id}|${r.label_id}|${r.closed}|${r.channel}|${r.department_id === null ? null : Number(r.department_id)}|${r.created_at}|${r.updated_at}`,
    )
    .sort();
}

describe.each(dialects)('ticket counters and label rows (%s)', (dialect) => {
  let s: Server;
  let call: Call;
  let a: SignedUp;
  const db = () => s.handle.db;

  const department = async (accountId: number) =>
    Number(
      (
        await db()
          .insertInto('departments')
          .values({ account_id: accountId, name: `D-${uniq()}`, created_at: Date.now() })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id,
    );
  const label = async (accountId: number) =>
    Number(
      (
        await db()
          .insertInto('labels')
          .values({
            account_id: accountId,
            name: `L-${uniq()}`,
            color: '#000000',
            color_dark: '#FFFFFF',
            level: 0,
            sla: 30,
            removed: 0,
            created_at: Date.now(),
          })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id,
    );
  const post = async (path: string, who: SignedUp, body: unknown) => {
    const r = await call('POST', path, { token: who.token, body });
    expect(r.status, `${path} ${r.text}`).toBe(200);
    return r.body;
  };
  const load = async (who: SignedUp, path: string) => {
    const r = await call('GET', path, { token: who.token });
    expect(r.status, `${path} ${r.text}`).toBe(200);
    return TicketLoadAnswer.parse(r.body);
  };
  /** A real count(*) of the account's tickets matching `where`, to compare the answer's `count` with. */
  const realCount = async (accountId: number, where: (q: ReturnType<typeof base>) => ReturnType<typeof base>) =>
    Number(
      (
        await where(base(accountId))
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const base = (accountId: number) => db().selectFrom('tickets').where('account_id', '=', accountId);

  beforeAll(async () => {
    s = await startTestServer(dialect);
    call = apiClient(s.url);
    a = await signUpVia(call);
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('TICKET-30 counters and label rows equal a real count after creates, status, department and label changes', async () => {
    const b = await signUpVia(call);
    const deps = [await department(a.accountId), await department(a.accountId), await department(a.accountId)];
    const labels = [await label(a.accountId), await label(a.accountId), await label(a.accountId)];
    const ids: number[] = [];
    for (let i = 0; i < 18; i++) {
      const body = await post('/api/ticket/create', a, {
        title: `T ${i}`,
        department_id: i % 4 === 3 ? null : deps[i % 3],
        label: i % 3 === 0 ? [] : i % 3 === 1 ? [labels[0]] : [labels[1], labels[2]],
      });
      ids.push(body.data.id);
    }
    // Another account's ticket, which must count only there.
    await post('/api/ticket/create', b, { title: 'theirs' });
    // Channels other than MANUAL, written as a channel import would (straight into the table).
    await db()
      .insertInto('tickets')
      .values(
        ['EMAIL', 'LIVECHAT', 'chat', 'CALL'].map((channel, k) => ({
          account_id: a.accountId,
          ticket_number: 1000 + k,
          title: channel,
          channel,
          closed: k % 2,
          priority: '',
          label: JSON.stringify([labels[k % 3]]),
          department_id: deps[k % 3]!,
          assignee: '',
          name: '',
          email: '',
          phone: '',
          created_at: 5_000 + k,
          updated_at: 5_000 + k,
        })),
      )
      .execute();

    for (const [k, id] of ids.entries()) {
      if (k % 2 === 0) await post('/api/ticket/status', a, { id, status: k % 4 === 0 ? 3 : 1 });
      if (k % 3 === 1) await post('/api/ticket/department', a, { id, department_id: k % 2 ? null : deps[2] });
      if (k % 5 === 0) await post('/api/ticket/labels', a, { id, label: k % 2 ? [] : [labels[2], labels[0]] });
    }
    // Back and forth: a status set twice, and to what it already was.
    await post('/api/ticket/status', a, { id: ids[0], status: 0 });
    await post('/api/ticket/status', a, { id: ids[0], status: 0 });
    // A bulk statement (several rows at once), then deleting a department (its tickets lose it).
    await db()
      .updateTable('tickets')
      .set({ closed: 2, updated_at: 9_999 })
      .where('account_id', '=', a.accountId)
      .where('channel', '=', 'EMAIL')
      .execute();
    const del = await call('DELETE', `/api/departments/${deps[1]}`, { token: a.token });
    expect(del.status, del.text).toBe(200);

    for (const acc of [a.accountId, b.accountId]) {
      expect((await counters(db(), acc)).length).toBeGreaterThan(0);
      expect(await counters(db(), acc)).toEqual(await realCounts(db(), acc));
      expect(await labelRows(db(), acc)).toEqual(await expectedLabelRows(db(), acc));
    }

    // The answers' counts (counter path) are the real ones.
    const depTab = await load(a, `/ticket/load2/department/all/ticket/0/${deps[0]}`);
    expect(depTab.count).toBe(
      await realCount(a.accountId, (q) =>
        q.where('department_id', '=', deps[0]!).where('channel', 'not in', ['chat', 'LIVECHAT', 'livechat']),
      ),
    );
    const open = await load(a, '/ticket/load/x/0/ticket/0');
    expect(open.count).toBe(
      await realCount(a.accountId, (q) =>
        q.where('closed', '=', 0).where('channel', 'not in', ['chat', 'LIVECHAT', 'livechat']),
      ),
    );
    expect(open.count).toBeGreaterThan(0);
    const livechat = await load(a, '/ticket/load/x/all/livechat/0');
    expect(livechat.count).toBe(1);
    const email = await load(a, '/ticket/load/x/all/ticket/0?channelFilter=EMAIL,MANUAL');
    expect(email.count).toBe(await realCount(a.accountId, (q) => q.where('channel', 'in', ['EMAIL', 'MANUAL'])));
    // The label filter reads ticket_labels: the tickets whose JSON lists label 2 or 3.
    const byLabel = await load(a, `/ticket/load/x/all/ticket/0?labelFilter=${labels[2]}`);
    const want = (await base(a.accountId).select(['id', 'label', 'channel']).execute())
      .filter((t) => (JSON.parse(t.label) as number[]).includes(labels[2]!))
      .filter((t) => !['chat', 'LIVECHAT', 'livechat'].includes(t.channel))
      .map((t) => Number(t.id))
      .sort((x, y) => x - y);
    expect(want.length).toBeGreaterThan(0);
    expect(byLabel.count).toBe(want.length);
    expect(byLabel.data.map((t) => t.id).sort((x, y) => x - y)).toEqual(want);
  });

  it('TICKET-30 TICKET-34 a label page read from ticket_labels pages in the list order (updated, created, ties by id)', async () => {
    const c = await signUpVia(call);
    const [l1, l2] = [await label(c.accountId), await label(c.accountId)];
    const ids: number[] = [];
    for (let i = 0; i < 45; i++)
      ids.push((await post('/api/ticket/create', c, { title: `P ${i}`, label: i % 3 ? [l1] : [l1, l2] })).data.id);
    // Times with ties (the id decides) and a created order unlike the updated one.
    for (const [k, id] of ids.entries())
      await db()
        .updateTable('tickets')
        .set({ updated_at: 1_000_000 + (k % 7) * 1000, created_at: 500_000 - (k % 5) * 1000 })
        .where('id', '=', id)
        .execute();
    const rows = await base(c.accountId).select(['id', 'updated_at', 'created_at']).execute();
    const order = (col: 'updated_at' | 'created_at') =>
      [...rows].sort((x, y) => Number(y[col]) - Number(x[col]) || Number(y.id) - Number(x.id)).map((r) => Number(r.id));
    for (const [sort, col] of [
      ['updated', 'updated_at'],
      ['created', 'created_at'],
    ] as const) {
      const want = order(col);
      const first = await load(c, `/ticket/load/x/0/ticket/0?labelFilter=${l1},${l2}&sort=${sort}`);
      const second = await load(c, `/ticket/load/x/0/ticket/30?labelFilter=${l2},${l1}&sort=${sort}`);
      expect(first.count).toBe(45);
      expect(second.count).toBe(45);
      expect([...first.data, ...second.data].map((t) => t.id)).toEqual(want);
    }
    // The Label tab with a time range: only the label's tickets in it.
    const tab = await load(c, `/ticket/load2/label/0/ticket/0/${l2}?start=1001&end=1003`);
    const inRange = rows
      .filter((r) => ids.indexOf(Number(r.id)) % 3 === 0)
      .filter((r) => Number(r.updated_at) >= 1_001_000 && Number(r.updated_at) <= 1_003_999);
    expect(inRange.length).toBeGreaterThan(0);
    expect(tab.count).toBe(inRange.length);
    expect(tab.data.map((t) => t.id).sort((x, y) => x - y)).toEqual(
      inRange
        .map((r) => Number(r.id))
        .sort((x, y) => x - y)
        .slice(0, 10),
    );
  });

  it('TICKET-30 the Workspace chat list is counted per member, not from the counters', async () => {
    const r = await call('GET', '/ticket/load/x/all/chat/0', { token: a.token });
    expect(r.status, r.text).toBe(200);
    // The first test's `chat` ticket has no members: listed and counted for nobody.
    expect(r.body.count).toBe(0);
  });

  it.runIf(dialect === 'postgres')(
    'TICKET-30 concurrent opposite status changes neither deadlock nor lose a count',
    async () => {
      const x = await post('/api/ticket/create', a, { title: 'x' });
      const y = await post('/api/ticket/create', a, { title: 'y' });
      await post('/api/ticket/status', a, { id: y.data.id, status: 3 });
      const flips = Array.from({ length: 24 }, (_, k) =>
        call('POST', '/api/ticket/status', {
          token: a.token,
          body: k % 2 ? { id: x.data.id, status: k % 4 === 1 ? 3 : 0 } : { id: y.data.id, status: k % 4 ? 3 : 0 },
        }),
      );
      const results = await Promise.all(flips);
      expect(results.map((r) => r.status)).toEqual(results.map(() => 200));
      expect(await counters(db(), a.accountId)).toEqual(await realCounts(db(), a.accountId));
    },
    60_000,
  );

  it('TICKET-30 deleting an account removes its counters and label rows', async () => {
    const c = await signUpVia(call);
    const l = await label(c.accountId);
    await post('/api/ticket/create', c, { title: 'gone', label: [l] });
    expect(await counters(db(), c.accountId)).toHaveLength(1);
    await db().deleteFrom('accounts').where('id', '=', c.accountId).execute();
    expect(await db().selectFrom('ticket_counts').selectAll().where('account_id', '=', c.accountId).execute()).toEqual(
      [],
    );
    expect(await labelRows(db(), c.accountId)).toEqual([]);
  });

  it('TICKET-30 migration 0016 fills both tables from the tickets already there', async () => {
    // Undo 0016 on this database (after the tests above wrote tickets), write more, then migrate again.
    const raw = (q: string) => sql.raw(q).execute(db());
    if (dialect === 'postgres') {
      for (const t of ['insert', 'update', 'delete']) await raw(`drop trigger ticket_index_${t} on tickets`);
    } else {
      for (const t of ['insert', 'count', 'label', 'columns', 'delete']) await raw(`drop trigger ticket_index_${t}`);
    }
    await raw('drop table ticket_labels');
    await raw('drop table ticket_counts');
    await db()
      .deleteFrom('kysely_migration' as never)
      .where('name' as never, '=', '0016_ticket_counts' as never)
      .execute();
    const l = await label(a.accountId);
    await post('/api/ticket/create', a, { title: 'before 0016', label: [l, l] });
    expect(await migrateToLatest(db(), dialect)).toEqual(['0016_ticket_counts']);
    expect(await counters(db(), a.accountId)).toEqual(await realCounts(db(), a.accountId));
    expect(await labelRows(db(), a.accountId)).toEqual(await expectedLabelRows(db(), a.accountId));
    // And the triggers are back.
    await post('/api/ticket/create', a, { title: 'after 0016', label: [l] });
    expect(await counters(db(), a.accountId)).toEqual(await realCounts(db(), a.accountId));
    expect(await labelRows(db(), a.accountId)).toEqual(await expectedLabelRows(db(), a.accountId));
  });
});

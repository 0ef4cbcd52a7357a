import { LIVECHAT_STRINGS } from '@parley/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type Call } from '../../testing/api.js';
import { liveChatAccount, queueVisitor } from '../../testing/livechat.js';
import { connectSocket, relayed, type TestSocket, waitFor } from '../../testing/sockets.js';
import { dialects, startTestServer } from '../../testing/support.js';

const VISITORS = 30;
const AGENTS = 3;
const LIMIT = 5; // Starter

/** A crowd at once. Its own server, so the per-IP register limit is not shared with other tests. */
describe.each(dialects)('live chat crowd (%s)', (dialect) => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let call: Call;
  const opened: { close(): void }[] = [];
  beforeAll(async () => {
    server = await startTestServer(dialect, { TRUST_PROXY: 'true' });
    call = apiClient(server.url);
  });
  afterAll(async () => {
    for (const s of opened) s.close();
    await server?.stop();
  });
  const db = () => server.handle.db;

  it(`LIVECHAT-04 LIVECHAT-05 LIVECHAT-06 LIVECHAT-21 VISITOR-21 VISITOR-22 VISITOR-23 ${VISITORS} visitors queue at once with ${AGENTS} agents: all served, queue numbers right, none accepted twice, no agent above the plan limit`, async () => {
    const { admin, agents, token } = await liveChatAccount(call, db(), AGENTS, 1);
    const sockets = await Promise.all(agents.map((a) => connectSocket(server.url, a.token, opened as TestSocket[])));

    // All at once.
    const visitors = await Promise.all(
      Array.from({ length: VISITORS }, (_, i) => queueVisitor(call, server.url, token, `Crowd${i}`, opened)),
    );
    // VISITOR-22: the places answered are exactly 1..30 (no two visitors share one, none is skipped).
    expect(visitors.map((v) => v.queue).sort((a, b) => a - b)).toEqual(
      Array.from({ length: VISITORS }, (_, i) => i + 1),
    );

    const queued = async () =>
      (
        await db()
          .selectFrom('livechats')
          .select(['visitor_id'])
          .where('account_id', '=', admin.accountId)
          .where('state', '=', 'queued')
          .orderBy('id')
          .execute()
      ).map((r) => Number(r.visitor_id));
    const visitorIds = await db()
      .selectFrom('livechats')
      .select(['visitor_id', 'name'])
      .where('account_id', '=', admin.accountId)
      .execute();
    const idOf = new Map(visitorIds.map((r) => [r.name, Number(r.visitor_id)]));
    const byVisitor = new Map(visitors.map((v, i) => [idOf.get(`Crowd${i}`)!, v]));
    /** Each waiting visitor's last announced number is its place in the queue (oldest first). */
    const placesRight = async () => {
      const order = await queued();
      return order.every((vid, i) => byVisitor.get(vid)!.places.at(-1) === i + 1);
    };
    await waitFor(placesRight, 'every visitor told its place after queueing');

    const accepted: { agent: number; ticket: number; livechat: number }[] = [];
    const errors: string[] = [];
    let maxOpen = 0;
    const openOf = async (username: string) =>
      Number(
        (
          await db()
            .selectFrom('livechats')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('account_id', '=', admin.accountId)
            .where('state', '=', 'chatting')
            .where('agent', '=', username)
            .executeTakeFirstOrThrow()
        ).n,
      );
    async function take(i: number): Promise<string | null> {
      const r = await sockets[i]!.emitWithAck('acceptLiveChat', null);
      if (!r.ok) return r.error;
      accepted.push({ agent: i, ticket: r.ticket_id, livechat: r.livechat_id });
      maxOpen = Math.max(maxOpen, await openOf(agents[i]!.username));
      return null;
    }

    // Phase 1: every agent takes chats, several calls in flight at once, until the plan limit stops it.
    await Promise.all(
      agents.map(async (_, i) => {
        for (;;) {
          const errs = await Promise.all([take(i), take(i), take(i)]);
          for (const e of errs) if (e) errors.push(e);
          if (errs.some((e) => e === LIVECHAT_STRINGS.limit(LIMIT, 1))) return;
        }
      }),
    );
    expect(accepted).toHaveLength(AGENTS * LIMIT);
    expect(new Set(errors)).toEqual(new Set([LIVECHAT_STRINGS.limit(LIMIT, 1)]));
    // The 15 still waiting now hold places 1..15.
    expect(await queued()).toHaveLength(VISITORS - AGENTS * LIMIT);
    await waitFor(placesRight, 'places fall after the first 15 were taken');

    // Phase 2: agents end a chat and take the next, all three at once, until nobody waits.
    const mine = (i: number) => accepted.filter((a) => a.agent === i && !ended.has(a.ticket)).map((a) => a.ticket);
    const ended = new Set<number>();
    await Promise.all(
      agents.map(async (a, i) => {
        for (;;) {
          const err = await take(i);
          if (err === LIVECHAT_STRINGS.queueEmpty) return;
          if (err === LIVECHAT_STRINGS.limit(LIMIT, 1)) {
            const t = mine(i)[0]!;
            ended.add(t);
            const r = await call('POST', '/api/livechat/end', { token: a.token, body: { id: t } });
            expect(r.status, r.text).toBe(200);
          } else if (err) throw new Error(err);
        }
      }),
    );

    // Every visitor served, once; no chat accepted twice; nobody above the limit.
    expect(accepted).toHaveLength(VISITORS);
    expect(new Set(accepted.map((a) => a.livechat)).size).toBe(VISITORS);
    expect(new Set(accepted.map((a) => a.ticket)).size).toBe(VISITORS);
    expect(maxOpen).toBeLessThanOrEqual(LIMIT);
    expect(maxOpen).toBe(LIMIT);
    await waitFor(() => visitors.every((v) => v.accepted.length === 1), 'every visitor got queueAccepted');
    // Everything the relay was to write to the visitors' sockets is written (a second queueAccepted too);
    // their answers to a later call come after it.
    await relayed(db(), admin.accountId);
    await Promise.all(visitors.map((v) => v.socket.emitWithAck('visitorHistory')));
    expect(visitors.every((v) => v.accepted.length === 1)).toBe(true);
    expect(new Set(visitors.map((v) => v.accepted[0])).size).toBe(VISITORS);
    for (const v of visitors) {
      // Numbers only ever fall, and stay between 1 and 30.
      expect(v.places.every((p, i) => p >= 1 && p <= VISITORS && (i === 0 || p <= v.places[i - 1]!))).toBe(true);
    }
    const rows = await db().selectFrom('livechats').selectAll().where('account_id', '=', admin.accountId).execute();
    expect(rows.every((r) => r.ticket_id !== null && r.state !== 'queued')).toBe(true);
    const tickets = await db()
      .selectFrom('tickets')
      .select(['id', 'assignee'])
      .where('account_id', '=', admin.accountId)
      .where('channel', '=', 'LIVECHAT')
      .execute();
    expect(tickets).toHaveLength(VISITORS);
    for (const a of accepted)
      expect(tickets.find((t) => Number(t.id) === a.ticket)?.assignee).toBe(agents[a.agent]!.username);
  }, 60_000);
});

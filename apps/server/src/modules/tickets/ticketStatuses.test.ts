import {
  TICKET_STATUS,
  TICKET_STATUS_STRINGS,
  TICKET_STRINGS,
  TicketChangeAnswer,
  TicketInfoAnswer,
  TicketLoadAnswer,
  TicketStatusListAnswer,
  ticketStatusName,
} from '@parley/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversationRules } from '../../app.js';
import { runCommand } from '../../platform/outbox/index.js';
import { addUserVia, apiClient, type Call, signUpVia, uniq } from '../../testing/api.js';
import { connectSocket, type TestSocket, waitFor } from '../../testing/sockets.js';
import { dialects, startTestServer } from '../../testing/support.js';
import { postMessage } from '../messages/index.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;

describe.each(dialects)('custom ticket statuses (%s)', (dialect) => {
  let s: Server;
  let call: Call;
  const opened: TestSocket[] = [];
  beforeAll(async () => {
    s = await startTestServer(dialect);
    call = apiClient(s.url);
  });
  afterAll(async () => {
    for (const so of opened) so.disconnect();
    await s?.stop();
  });

  async function ticket(accountId: number, closed: number, n: number) {
    const at = Date.now();
    const row = await s.handle.db
      .insertInto('tickets')
      .values({
        account_id: accountId,
        ticket_number: n,
        title: `T${n}`,
        channel: 'EMAIL',
        closed,
        priority: '',
        label: '[]',
        department_id: null,
        assignee: '',
        name: '',
        email: '',
        phone: '',
        created_at: at,
        updated_at: at + n,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return Number(row.id);
  }

  it('TICKET-23 TICKET-24 TICKET-25 admins add, change and delete custom statuses; codes from 5, never reused', async () => {
    const a = await signUpVia(call);
    const agent = await addUserVia(call, a.token, { username: `ag-${uniq()}`, type: 'agent' });
    const watcher = await connectSocket(s.url, agent.token, opened);
    const seen: { statuses: { name: string }[] }[] = [];
    (watcher as unknown as { on(n: string, f: (e: { data: never }) => void): void }).on('ticketStatusesUpdated', (e) =>
      seen.push(e.data),
    );

    const empty = await call('GET', '/api/ticketstatus/get', { token: agent.token });
    expect(TicketStatusListAnswer.parse(empty.body).data).toEqual([]);

    const waiting = await call('POST', '/api/ticketstatus', { token: a.token, body: { name: 'Waiting on customer' } });
    expect(waiting.status).toBe(200);
    expect(waiting.body.data).toMatchObject({ status_code: 5, name: 'Waiting on customer', alternate: '0' });
    const parked = await call('POST', '/api/ticketstatus', {
      token: a.token,
      body: { name: 'Parked', alternate: '1' },
    });
    expect(parked.body.data).toMatchObject({ status_code: 6, alternate: '1' });
    await waitFor(() => seen.length >= 2, 'ticketStatusesUpdated twice');
    expect(seen[1]!.statuses.map((x) => x.name)).toEqual(['Waiting on customer', 'Parked']);

    // Bad input: clear 400s, nothing added; agents may not; names unique (defaults included).
    for (const body of [{ name: '' }, { name: ' ' }, { name: 'x'.repeat(41) }, { name: 'Ok', alternate: '2' }, {}])
      expect((await call('POST', '/api/ticketstatus', { token: a.token, body })).status).toBe(400);
    const dup = await call('POST', '/api/ticketstatus', { token: a.token, body: { name: 'parked' } });
    expect([dup.status, dup.body.description]).toEqual([400, TICKET_STATUS_STRINGS.nameTaken]);
    const dflt = await call('POST', '/api/ticketstatus', { token: a.token, body: { name: 'Resolved' } });
    expect([dflt.status, dflt.body.description]).toEqual([400, TICKET_STATUS_STRINGS.nameTaken]);
    expect((await call('POST', '/api/ticketstatus', { token: agent.token, body: { name: 'Mine' } })).status).toBe(403);

    const upd = await call('POST', '/api/ticketstatus/update', {
      token: a.token,
      body: { id: parked.body.data.id, name: 'On hold', alternate: '1' },
    });
    expect(upd.body.data).toMatchObject({ status_code: 6, name: 'On hold' });
    const b = await signUpVia(call);
    const foreign = await call('POST', '/api/ticketstatus/update', {
      token: b.token,
      body: { id: parked.body.data.id, name: 'Stolen', alternate: '0' },
    });
    expect([foreign.status, foreign.body.description]).toEqual([404, TICKET_STATUS_STRINGS.notFound]);
    expect((await call('DELETE', `/api/ticketstatus/${parked.body.data.id}`, { token: b.token })).status).toBe(404);

    expect((await call('DELETE', `/api/ticketstatus/${parked.body.data.id}`, { token: a.token })).status).toBe(200);
    expect((await call('DELETE', `/api/ticketstatus/${parked.body.data.id}`, { token: a.token })).status).toBe(404);
    const next = await call('POST', '/api/ticketstatus', { token: a.token, body: { name: 'Escalated' } });
    expect(next.body.data.status_code).toBe(7);
    const list = TicketStatusListAnswer.parse((await call('GET', '/api/ticketstatus/get', { token: a.token })).body);
    expect(list.data.map((x) => [x.status_code, x.name])).toEqual([
      [5, 'Waiting on customer'],
      [7, 'Escalated'],
    ]);
    // The other account sees none of them.
    expect((await call('GET', '/api/ticketstatus/get', { token: b.token })).body.data).toEqual([]);
    // TICKET-23: names of default, custom and unknown codes.
    expect(ticketStatusName(2, list.data)).toBe('Resolved');
    expect(ticketStatusName(5, list.data)).toBe('Waiting on customer');
    expect(ticketStatusName(6, list.data)).toBe('?');
  });

  it('TICKET-22 TICKET-24 TICKET-27 a ticket takes a custom status; Open lists open-type ones; filters by code', async () => {
    const a = await signUpVia(call);
    const openType = (await call('POST', '/api/ticketstatus', { token: a.token, body: { name: 'Waiting' } })).body.data;
    const closedType = (
      await call('POST', '/api/ticketstatus', { token: a.token, body: { name: 'Archived', alternate: '1' } })
    ).body.data;
    const t0 = await ticket(a.accountId, 0, 1);
    const t1 = await ticket(a.accountId, 0, 2);
    const t2 = await ticket(a.accountId, 0, 3);

    const set = await call('POST', '/api/ticket/status', {
      token: a.token,
      body: { id: t1, status: openType.status_code },
    });
    expect(set.status).toBe(200);
    expect(TicketChangeAnswer.parse(set.body).data.closed).toBe(openType.status_code);
    await call('POST', '/api/ticket/status', { token: a.token, body: { id: t2, status: closedType.status_code } });
    const msg = await s.handle.db
      .selectFrom('messages')
      .select('message')
      .where('ticket_id', '=', t1)
      .where('type', '=', 'system')
      .executeTakeFirstOrThrow();
    expect(msg.message).toBe(`${a.name} set the status to Waiting.`);

    const ids = async (filter: string) => {
      const r = await call('GET', `/ticket/load/me/${filter}/ticket/0`, { token: a.token });
      expect(r.status).toBe(200);
      return TicketLoadAnswer.parse(r.body)
        .data.map((x) => x.id)
        .sort((x, y) => x - y);
    };
    expect(await ids('0')).toEqual([t0, t1]);
    expect(await ids('open')).toEqual([t0, t1]);
    expect(await ids(String(openType.status_code))).toEqual([t1]);
    expect(await ids(String(closedType.status_code))).toEqual([t2]);
    expect(await ids('4')).toEqual([t0, t1, t2]);

    const info = await call('GET', `/ticket/info/me/${t2}`, { token: a.token });
    expect(TicketInfoAnswer.parse(info.body).data.statusName).toBe('Archived');
    // Deleted: the ticket keeps its code, shows "?" and is still reachable by the code.
    await call('DELETE', `/api/ticketstatus/${closedType.id}`, { token: a.token });
    const after = await call('GET', `/ticket/info/me/${t2}`, { token: a.token });
    expect(after.body.data.statusName).toBe('?');
    expect(await ids(String(closedType.status_code))).toEqual([t2]);

    // Bad input: a code the account never had, 4, another account's code; nothing changes.
    const b = await signUpVia(call);
    const bCode = (await call('POST', '/api/ticketstatus', { token: b.token, body: { name: 'Theirs' } })).body.data;
    for (const status of [9, 4, bCode.status_code + 10, closedType.status_code]) {
      const r = await call('POST', '/api/ticket/status', { token: a.token, body: { id: t0, status } });
      expect(r.status).toBe(400);
    }
    const unknown = await call('POST', '/api/ticket/status', { token: a.token, body: { id: t0, status: 9 } });
    expect(unknown.body.description).toBe(TICKET_STATUS_STRINGS.unknownStatus);
    expect((await call('GET', `/ticket/info/me/${t0}`, { token: a.token })).body.data.closed).toBe(0);
    const badFilter = await call('GET', '/ticket/load/me/9/ticket/0', { token: a.token });
    expect([badFilter.status, badFilter.body.description]).toEqual([400, TICKET_STRINGS.badFilter]);
  });

  it("TICKET-24 TICKET-30 the Open list follows the account's open-type statuses as they come and go, load after load", async () => {
    const a = await signUpVia(call);
    const open = async () => {
      const r = await call('GET', '/ticket/load/me/0/ticket/0', { token: a.token });
      expect(r.status).toBe(200);
      const answer = TicketLoadAnswer.parse(r.body);
      return { ids: answer.data.map((x) => x.id).sort((x, y) => x - y), count: answer.count };
    };
    const t0 = await ticket(a.accountId, 0, 1);
    // The list reads the page with the open codes it saw last time, and again when they changed since.
    expect(await open()).toEqual({ ids: [t0], count: 1 });
    const waiting = (await call('POST', '/api/ticketstatus', { token: a.token, body: { name: 'Waiting' } })).body.data;
    const t1 = await ticket(a.accountId, waiting.status_code, 2);
    expect(await open()).toEqual({ ids: [t0, t1], count: 2 });
    expect(await open()).toEqual({ ids: [t0, t1], count: 2 });
    await call('DELETE', `/api/ticketstatus/${waiting.id}`, { token: a.token });
    expect(await open()).toEqual({ ids: [t0], count: 1 });
  });
  it('TICKET-22 a customer writing to a Pending ticket makes it Open again, with a note; an agent message or a custom status does not', async () => {
    const a = await signUpVia(call);
    const pending = await ticket(a.accountId, TICKET_STATUS.pending, 1);
    const agentOnly = await ticket(a.accountId, TICKET_STATUS.pending, 2);
    const custom = (await call('POST', '/api/ticketstatus', { token: a.token, body: { name: 'On hold' } })).body.data;
    const held = await ticket(a.accountId, custom.status_code, 3);
    const say = (ticketId: number, fromCustomer: boolean) =>
      runCommand(s.handle.db, (trx) =>
        postMessage(trx, conversationRules(), {
          accountId: a.accountId,
          ticketId,
          sender: fromCustomer ? 'pat@example.net' : a.username,
          senderName: fromCustomer ? 'Pat' : a.name,
          type: 'text',
          message: 'Any news?',
          fromCustomer,
        }),
      );
    await say(pending, true);
    await say(agentOnly, false);
    await say(held, true);
    const status = async (id: number) =>
      Number(
        (await s.handle.db.selectFrom('tickets').select('closed').where('id', '=', id).executeTakeFirstOrThrow())
          .closed,
      );
    expect([await status(pending), await status(agentOnly), await status(held)]).toEqual([
      TICKET_STATUS.open,
      TICKET_STATUS.pending,
      custom.status_code,
    ]);
    const texts = await s.handle.db
      .selectFrom('messages')
      .select(['message', 'type'])
      .where('ticket_id', '=', pending)
      .orderBy('id')
      .execute();
    expect(texts).toEqual([
      { message: 'Any news?', type: 'text' },
      { message: TICKET_STRINGS.customerReopened, type: 'system' },
    ]);
    const audit = await s.handle.db
      .selectFrom('audit_log')
      .select(['actor', 'action'])
      .where('account_id', '=', a.accountId)
      .where('action', '=', 'ticket.status_set')
      .execute();
    expect(audit).toEqual([{ actor: 'server', action: 'ticket.status_set' }]);
  });
});

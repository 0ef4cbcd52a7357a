import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { ANONYMISED, RETENTION_STRINGS } from '@parley/contracts';
import JSZip from 'jszip';
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCommand } from '../../platform/outbox/index.js';
import { addUserVia, apiClient, type Call, type SignedUp, signUpVia, uniq } from '../../testing/api.js';
import { dialects, startTestServer } from '../../testing/support.js';
import { uploadPath } from '../messages/index.js';
import { insertNumberedTicket } from '../tickets/insertNumberedTicket.js';
import { BATCH } from './purge.js';
import { retentionTask } from './rules.js';

const DAY = 24 * 3600 * 1000;

describe.each(dialects)('data retention and privacy (%s)', (dialect) => {
  let s: Awaited<ReturnType<typeof startTestServer>>;
  let call: Call;
  let a: SignedUp;
  let b: SignedUp;
  let agent: { token: string };
  const db = () => s.handle.db;
  const dataDir = () => s.config.DATA_DIR;

  interface Seeded {
    id: number;
    number: number;
    accountId: number;
    customerMessage: number;
    agentMessage: number;
    file: string;
    word: string;
  }

  /** A contact of the account, made through the API. */
  const contact = async (u: SignedUp, name: string, email: string) => {
    const r = await call('POST', '/api/contacts', {
      token: u.token,
      body: { name, identifiers: [{ kind: 'email', value: email }] },
    });
    expect(r.status, r.text).toBe(200);
    return r.body.id as number;
  };

  /** A conversation written straight into the database, `age` days old, with a customer's message and file. */
  async function seed(
    u: SignedUp,
    o: { channel?: string; closed?: number; age: number; contactId?: number | null; email?: string; name?: string },
  ): Promise<Seeded> {
    const at = Date.now() - o.age * DAY;
    const email = o.email ?? `c-${uniq()}@example.com`;
    const key = randomBytes(18).toString('base64url');
    const word = `secret${uniq()}`;
    return runCommand(db(), async (trx) => {
      const id = await insertNumberedTicket(trx, u.accountId, {
        channel: o.channel ?? 'EMAIL',
        title: `About ${word}`,
        closed: o.closed ?? 3,
        name: o.name ?? 'Carla Customer',
        email,
        contact_id: o.contactId ?? null,
        created_at: at,
        updated_at: at,
      });
      const { ticket_number } = await trx
        .selectFrom('tickets')
        .select('ticket_number')
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      mkdirSync(uploadPath(dataDir(), u.accountId, ''), { recursive: true });
      writeFileSync(uploadPath(dataDir(), u.accountId, key), `bytes of ${word}`);
      await trx
        .insertInto('uploads')
        .values({
          account_id: u.accountId,
          ticket_id: id,
          user_id: null,
          key,
          name: 'invoice.txt',
          mime: 'text/plain',
          size: 20,
          thumb_key: null,
          created_at: at,
        })
        .execute();
      const files = JSON.stringify([{ file: `/files/${key}/invoice.txt`, name: 'invoice.txt', size: 20 }]);
      const m1 = await trx
        .insertInto('messages')
        .values({
          account_id: u.accountId,
          ticket_id: id,
          type: 'text',
          message: `Hello, my ${word} details`,
          sender: email,
          sender_name: o.name ?? 'Carla Customer',
          client_id: null,
          created_at: at,
          files,
          reply_id: null,
          deleted_at: null,
          deleted_by: null,
          email_meta: null,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const m2 = await trx
        .insertInto('messages')
        .values({
          account_id: u.accountId,
          ticket_id: id,
          type: 'text',
          message: 'We are on it',
          sender: u.username,
          sender_name: u.name,
          client_id: null,
          created_at: at + 1000,
          reply_id: null,
          deleted_at: null,
          deleted_by: null,
          email_meta: null,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return {
        id,
        number: Number(ticket_number),
        accountId: u.accountId,
        customerMessage: Number(m1.id),
        agentMessage: Number(m2.id),
        file: key,
        word,
      };
    });
  }

  const ticketRow = (t: Seeded) => db().selectFrom('tickets').selectAll().where('id', '=', t.id).executeTakeFirst();
  const messageRow = (id: number) => db().selectFrom('messages').selectAll().where('id', '=', id).executeTakeFirst();
  const fileThere = (t: Seeded) => existsSync(uploadPath(dataDir(), t.accountId, t.file));
  const uploadRow = (t: Seeded) =>
    db()
      .selectFrom('uploads')
      .select('key')
      .where('account_id', '=', t.accountId)
      .where('key', '=', t.file)
      .executeTakeFirst();
  /** The ticket, its messages and its file are all still there, as they were. */
  const untouched = async (t: Seeded) => {
    const row = await ticketRow(t);
    expect(row?.name, `ticket ${t.number}`).toBe('Carla Customer');
    expect(row?.anonymised_at ?? null).toBeNull();
    expect((await messageRow(t.customerMessage))?.message).toMatch(/^Hello, my secret/);
    expect(await messageRow(t.agentMessage)).toBeTruthy();
    expect(await uploadRow(t)).toBeTruthy();
    expect(fileThere(t)).toBe(true);
  };
  const addRule = async (u: SignedUp, body: Record<string, unknown>) => {
    const r = await call('POST', '/api/retention/rules', { token: u.token, body });
    expect(r.status, r.text).toBe(200);
    return r.body.data.id as number;
  };
  const removeRules = async (u: SignedUp) => {
    for (const r of (await call('GET', '/api/retention/rules', { token: u.token })).body.data)
      expect((await call('DELETE', `/api/retention/rules/${r.id}`, { token: u.token })).status).toBe(200);
  };
  const preview = async (u: SignedUp) => {
    const r = await call('GET', '/api/retention/preview', { token: u.token });
    expect(r.status, r.text).toBe(200);
    return r.body.data as { ruleId: number; count: number; ticketNumbers: number[] }[];
  };
  const runNow = async (u: SignedUp) => {
    const r = await call('POST', '/api/retention/run', { token: u.token });
    expect(r.status, r.text).toBe(200);
    return r.body.data as { counts: { ruleId: number; count: number }[]; trigger: string };
  };
  const rawGet = (path: string, token: string) =>
    fetch(`${s.url}${path}`, { headers: { authorization: `Bearer ${token}` } });

  beforeAll(async () => {
    s = await startTestServer(dialect);
    call = apiClient(s.url);
  });
  // Each case has accounts of its own, so what one case leaves behind is never another's old data.
  beforeEach(async () => {
    a = await signUpVia(call);
    b = await signUpVia(call);
    agent = await addUserVia(call, a.token, { username: `agent-${uniq()}`, type: 'agent' });
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('RET-01 a delete rule removes exactly the closed tickets the preview listed, with messages and files; nothing younger, open, of another channel or of another account', async () => {
    const old1 = await seed(a, { age: 40 });
    const old2 = await seed(a, { age: 31 });
    const young = await seed(a, { age: 29 });
    const open = await seed(a, { age: 40, closed: 0 });
    const resolved = await seed(a, { age: 40, closed: 2 });
    const otherChannel = await seed(a, { age: 40, channel: 'WHATSAPP' });
    const otherAccount = await seed(b, { age: 400 });
    await addRule(b, { target: 'closed_tickets', action: 'delete', days: 365, channel: 'WHATSAPP' });
    const ruleId = await addRule(a, { target: 'closed_tickets', action: 'delete', days: 30, channel: 'EMAIL' });

    const [p] = await preview(a);
    expect(p).toMatchObject({ ruleId, count: 2 });
    expect(p!.ticketNumbers).toEqual([old1.number, old2.number]);

    const run = await runNow(a);
    expect(run.counts).toEqual([{ ruleId, target: 'closed_tickets', count: 2 }]);
    for (const t of [old1, old2]) {
      expect(await ticketRow(t)).toBeUndefined();
      expect(await messageRow(t.customerMessage)).toBeUndefined();
      expect(await messageRow(t.agentMessage)).toBeUndefined();
      expect(await uploadRow(t)).toBeUndefined();
      expect(fileThere(t)).toBe(false);
    }
    for (const t of [young, open, resolved, otherChannel, otherAccount]) await untouched(t);
    // SQLite's search index forgets the removed text (its triggers); Postgres indexes the rows themselves.
    if (dialect === 'sqlite') {
      const hits = async (word: string) =>
        (await sql<{ rowid: number }>`select rowid from messages_fts where messages_fts match ${word}`.execute(db()))
          .rows.length;
      expect(await hits(old1.word)).toBe(0);
      expect(await hits(young.word)).toBe(1);
    }
    // The next run has nothing left to remove; the run is logged and audited with counts only.
    expect((await preview(a))[0]!.count).toBe(0);
    const runs = (await call('GET', '/api/retention/runs', { token: a.token })).body.data;
    expect(runs[0]).toMatchObject({ trigger: 'manual', counts: [{ ruleId, count: 2 }] });
    const audit = (await call('GET', '/api/audit', { token: a.token })).body.data as {
      action: string;
      detail: unknown;
    }[];
    expect(audit.find((e) => e.action === 'retention.run')?.detail).toMatchObject({ counts: [{ ruleId, count: 2 }] });
    await removeRules(a);
    await removeRules(b);
  });

  it("RET-02 an anonymise rule blanks the customer in what the preview listed and keeps the team's words; a second run finds nothing", async () => {
    const c = await contact(a, `Ana ${uniq()}`, `ana-${uniq()}@example.com`);
    const old = await seed(a, { age: 10, channel: 'LIVECHAT', contactId: c });
    const chat = await runCommand(db(), async (trx) => {
      const v = await trx
        .insertInto('livechat_visitors')
        .values({ account_id: a.accountId, csrf_hash: uniq(), name: 'Carla', created_at: Date.now() - 10 * DAY })
        .returning('id')
        .executeTakeFirstOrThrow();
      const l = await trx
        .insertInto('livechats')
        .values({
          account_id: a.accountId,
          visitor_id: v.id,
          session_id: 1,
          state: 'ended',
          name: 'Carla Customer',
          phone: '+4915112345678',
          email: 'carla@example.com',
          message: 'Hi there',
          department_id: null,
          ticket_id: old.id,
          queued_at: Date.now() - 10 * DAY,
          accepted_at: null,
          ended_at: Date.now() - 10 * DAY,
          offered_user_id: null,
          offered_at: null,
          rating: 5,
          rated_at: null,
          page: 'https://shop.example/cart',
          browser: 'Firefox',
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return Number(l.id);
    });
    const young = await seed(a, { age: 6, channel: 'LIVECHAT' });
    const ruleId = await addRule(a, { target: 'closed_tickets', action: 'anonymise', days: 7 });
    const [p] = await preview(a);
    expect(p).toMatchObject({ ruleId, count: 1, ticketNumbers: [old.number] });
    expect((await runNow(a)).counts[0]!.count).toBe(1);

    const t = await ticketRow(old);
    expect(t).toMatchObject({ name: ANONYMISED, title: ANONYMISED, email: '', phone: '', contact_id: null });
    expect(t?.anonymised_at).not.toBeNull();
    expect((await messageRow(old.customerMessage))?.message).toBe(ANONYMISED);
    expect((await messageRow(old.customerMessage))?.sender).toBe(ANONYMISED);
    expect((await messageRow(old.customerMessage))?.files).toBe('[]');
    expect((await messageRow(old.agentMessage))?.message).toBe('We are on it');
    expect(await uploadRow(old)).toBeUndefined();
    expect(fileThere(old)).toBe(false);
    const lc = await db().selectFrom('livechats').selectAll().where('id', '=', chat).executeTakeFirstOrThrow();
    expect(lc).toMatchObject({ name: ANONYMISED, email: '', phone: '', page: '', browser: '', rating: 5 });
    await untouched(young);
    expect((await preview(a))[0]!.count).toBe(0);
    expect((await runNow(a)).counts[0]!.count).toBe(0);
    await removeRules(a);
  });

  it('RET-03 recordings, visitor data and the audit log: each removed after its days by the daily task, the younger kept', async () => {
    const call1 = await seed(a, { age: 1, channel: 'CALL', closed: 0 });
    const call2 = await seed(a, { age: 1, channel: 'CALL', closed: 0 });
    const rec = async (t: Seeded, age: number) => {
      const key = randomBytes(18).toString('base64url');
      writeFileSync(uploadPath(dataDir(), a.accountId, key), 'audio');
      await db()
        .insertInto('uploads')
        .values({
          account_id: a.accountId,
          ticket_id: t.id,
          user_id: null,
          key,
          name: 'call.wav',
          mime: 'audio/wav',
          size: 5,
          thumb_key: null,
          created_at: Date.now(),
        })
        .execute();
      await db()
        .insertInto('calls')
        .values({
          account_id: a.accountId,
          ticket_id: t.id,
          call_id: uniq(),
          user_id: null,
          started_at: Date.now() - age * DAY,
          ended_at: Date.now() - age * DAY,
          recording_key: key,
          recording_name: 'call.wav',
          energy: null,
          pace: null,
        })
        .execute();
      return key;
    };
    const oldRec = await rec(call1, 100);
    const youngRec = await rec(call2, 50);
    const oldAudit = await db()
      .insertInto('audit_log')
      .values({
        account_id: a.accountId,
        user_id: null,
        actor: 'x',
        action: 'settings.updated',
        detail: '{}',
        ip: '',
        created_at: Date.now() - 800 * DAY,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const bAudit = await db()
      .insertInto('audit_log')
      .values({
        account_id: b.accountId,
        user_id: null,
        actor: 'x',
        action: 'settings.updated',
        detail: '{}',
        ip: '',
        created_at: Date.now() - 800 * DAY,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const chat = async (state: string, age: number) => {
      const at = Date.now() - age * DAY;
      const v = await db()
        .insertInto('livechat_visitors')
        .values({ account_id: a.accountId, csrf_hash: uniq(), name: 'Vic Visitor', created_at: at })
        .returning('id')
        .executeTakeFirstOrThrow();
      const l = await db()
        .insertInto('livechats')
        .values({
          account_id: a.accountId,
          visitor_id: v.id,
          session_id: 1,
          state,
          name: 'Vic Visitor',
          phone: '',
          email: 'vic@example.com',
          message: 'Hi',
          department_id: null,
          ticket_id: null,
          queued_at: at,
          accepted_at: null,
          ended_at: state === 'chatting' ? null : at,
          offered_user_id: null,
          offered_at: null,
          rating: null,
          rated_at: null,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return { chat: Number(l.id), visitor: Number(v.id) };
    };
    const oldChat = await chat('offline', 20);
    const youngChat = await chat('ended', 10);
    const stillChatting = await chat('chatting', 20);
    await addRule(a, { target: 'recordings', action: 'delete', days: 90 });
    await addRule(a, { target: 'audit_log', action: 'delete', days: 730 });
    await addRule(a, { target: 'visitor_data', action: 'delete', days: 14, channel: 'LIVECHAT' });
    const p = await preview(a);
    expect(p.map((x) => x.count)).toEqual([1, 1, 1]);
    expect(p[0]!.ticketNumbers).toEqual([call1.number]);

    await retentionTask(db(), dataDir(), Date.now).run(Date.now());
    expect(existsSync(uploadPath(dataDir(), a.accountId, oldRec))).toBe(false);
    expect(existsSync(uploadPath(dataDir(), a.accountId, youngRec))).toBe(true);
    const calls = await db()
      .selectFrom('calls')
      .select(['ticket_id', 'recording_key'])
      .where('account_id', '=', a.accountId)
      .execute();
    expect(calls.find((c) => Number(c.ticket_id) === call1.id)?.recording_key).toBe('');
    expect(calls.find((c) => Number(c.ticket_id) === call2.id)?.recording_key).toBe(youngRec);
    // The conversation itself stays: the rule removes recordings only.
    await untouched(call1);
    const audit = await db().selectFrom('audit_log').select('id').where('id', 'in', [oldAudit.id, bAudit.id]).execute();
    expect(audit.map((x) => Number(x.id))).toEqual([Number(bAudit.id)]);
    const runs = (await call('GET', '/api/retention/runs', { token: a.token })).body.data;
    expect(runs[0]).toMatchObject({ trigger: 'schedule' });
    expect(runs[0].counts.map((c: { count: number }) => c.count)).toEqual([1, 1, 1]);
    const chats = await db().selectFrom('livechats').select('id').where('account_id', '=', a.accountId).execute();
    expect(chats.map((c) => Number(c.id)).sort()).toEqual([youngChat.chat, stillChatting.chat].sort());
    const visitors = await db()
      .selectFrom('livechat_visitors')
      .select('id')
      .where('account_id', '=', a.accountId)
      .execute();
    expect(visitors.map((v) => Number(v.id))).not.toContain(oldChat.visitor);
    expect(visitors).toHaveLength(2);
    await removeRules(a);
  });

  it('RET-10 a big account is worked in batches of its own transactions: every old ticket goes, the run says how many', async () => {
    const at = Date.now() - 50 * DAY;
    const n = BATCH * 2 + 17;
    await db()
      .insertInto('tickets')
      .values(
        Array.from({ length: n }, (_, i) => ({
          account_id: a.accountId,
          ticket_number: 1000 + i,
          title: `Bulk ${i}`,
          channel: 'EMAIL',
          closed: 3,
          priority: '',
          label: '[]',
          department_id: null,
          assignee: '',
          name: 'Bulk',
          email: '',
          phone: '',
          campaign_id: null,
          created_at: at,
          updated_at: at,
        })),
      )
      .execute();
    const young = await seed(a, { age: 1 });
    const ruleId = await addRule(a, { target: 'closed_tickets', action: 'delete', days: 30 });
    const [p] = await preview(a);
    expect(p).toMatchObject({ ruleId, count: n });
    expect(p!.ticketNumbers).toEqual(Array.from({ length: 10 }, (_, i) => 1000 + i));
    expect((await runNow(a)).counts).toEqual([{ ruleId, target: 'closed_tickets', count: n }]);
    const left = await db().selectFrom('tickets').select('id').where('account_id', '=', a.accountId).execute();
    expect(left.map((t) => Number(t.id))).toEqual([young.id]);
  });

  it("RET-04 a contact export holds every message of the contact on every channel and no one else's", async () => {
    const tag = uniq();
    const maria = await contact(a, `Maria ${tag} Lopez`, `maria.${tag}@example.com`);
    const lookalike = await contact(a, `Maria ${tag} Lopes`, `maria.${tag}@example.org`);
    const mine = [
      await seed(a, { age: 2, contactId: maria, name: `Maria ${tag} Lopez`, email: `maria.${tag}@example.com` }),
      await seed(a, { age: 900, channel: 'WHATSAPP', closed: 0, contactId: maria }),
    ];
    const theirs = await seed(a, { age: 2, contactId: lookalike, email: `maria.${tag}@example.org` });
    const other = await seed(b, { age: 2, email: `maria.${tag}@example.com` });

    const res = await rawGet(`/api/contacts/${maria}/export`, a.token);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    const zip = await JSZip.loadAsync(Buffer.from(await res.arrayBuffer()));
    const data = JSON.parse(await zip.file('contact.json')!.async('string'));
    expect(data.contact).toMatchObject({ id: maria, name: `Maria ${tag} Lopez` });
    expect(data.identifiers.map((i: { value: string }) => i.value)).toEqual([`maria.${tag}@example.com`]);
    const ids = data.tickets.flatMap((t: { messages: { id: number }[] }) => t.messages.map((m) => m.id)).sort();
    expect(ids).toEqual(mine.flatMap((t) => [t.customerMessage, t.agentMessage]).sort());
    for (const n of [theirs, other]) {
      expect(ids).not.toContain(n.customerMessage);
      expect(data.tickets.map((t: { ticketNumber: number }) => t.ticketNumber)).not.toContain(theirs.number);
    }
    const files = Object.keys(zip.files).filter((f) => f.startsWith('files/') && !zip.files[f]!.dir);
    expect(files).toHaveLength(2);
    expect(await zip.file(files[0] as string)!.async('string')).toMatch(/^bytes of secret/);
    const audit = (await call('GET', '/api/audit', { token: a.token })).body.data as {
      action: string;
      detail: object;
    }[];
    const entry = audit.find((e) => e.action === 'contact.exported');
    expect(entry?.detail).toEqual({ contactId: maria, tickets: 2 });

    // Another account's contact is not found; an agent may not export.
    expect((await rawGet(`/api/contacts/${maria}/export`, b.token)).status).toBe(404);
    expect((await rawGet(`/api/contacts/${maria}/export`, agent.token)).status).toBe(403);
  });

  it('RET-05 erasure needs the name or id typed, then leaves no trace of the contact but the audit entry', async () => {
    const tag = uniq();
    const name = `Erin ${tag} Erased`;
    const email = `erin.${tag}@example.com`;
    const erin = await contact(a, name, email);
    const keep = await contact(a, `Erin ${tag} Kept`, `erin.${tag}@example.org`);
    const gone = [
      await seed(a, { age: 1, contactId: erin, email, closed: 0 }),
      await seed(a, { age: 500, contactId: erin, channel: 'SMS' }),
    ];
    const stays = await seed(a, { age: 1, contactId: keep });

    const wrong = await call('POST', `/api/contacts/${erin}/erase`, { token: a.token, body: { confirm: 'Erin' } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.description ?? wrong.text).toContain(RETENTION_STRINGS.eraseMismatch);
    expect(await ticketRow(gone[0]!)).toBeTruthy();
    expect(
      (await call('POST', `/api/contacts/${erin}/erase`, { token: b.token, body: { confirm: name } })).status,
    ).toBe(404);
    expect(
      (await call('POST', `/api/contacts/${erin}/erase`, { token: agent.token, body: { confirm: name } })).status,
    ).toBe(403);

    const r = await call('POST', `/api/contacts/${erin}/erase`, { token: a.token, body: { confirm: ` ${name} ` } });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ tickets: 2, messages: 4, files: 2 });
    for (const t of gone) {
      expect(await ticketRow(t)).toBeUndefined();
      expect(await messageRow(t.customerMessage)).toBeUndefined();
      expect(fileThere(t)).toBe(false);
    }
    expect(await db().selectFrom('contacts').select('id').where('id', '=', erin).executeTakeFirst()).toBeUndefined();
    expect(
      await db().selectFrom('contact_identifiers').select('id').where('contact_id', '=', erin).executeTakeFirst(),
    ).toBeUndefined();
    expect((await call('GET', `/api/contacts/${erin}`, { token: a.token })).status).toBe(404);
    await untouched(stays);
    // The audit entry names the contact by id and counts only.
    const audit = await db()
      .selectFrom('audit_log')
      .select(['action', 'detail'])
      .where('account_id', '=', a.accountId)
      .where('action', '=', 'contact.erased')
      .execute();
    expect(audit).toHaveLength(1);
    expect(JSON.parse(audit[0]!.detail)).toEqual({ contactId: erin, tickets: 2, messages: 4, files: 2 });
    expect(audit[0]!.detail).not.toContain('Erin');
    expect(audit[0]!.detail).not.toContain(email);
  });

  it("RET-06 bad input: 0, -1 or 3651 days, an unknown target, action or channel, another account's rule: a clear 4xx and nothing saved", async () => {
    const count = async () =>
      Number(
        (
          await db()
            .selectFrom('retention_rules')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const bRule = await addRule(b, { target: 'closed_tickets', action: 'delete', days: 30 });
    const before = await count();
    const good = { target: 'closed_tickets', action: 'delete', days: 30, channel: '' };
    const bad: [Record<string, unknown>, string][] = [
      [{ ...good, days: 0 }, RETENTION_STRINGS.daysRange],
      [{ ...good, days: -1 }, RETENTION_STRINGS.daysRange],
      [{ ...good, days: 3651 }, RETENTION_STRINGS.daysRange],
      [{ ...good, days: 1.5 }, RETENTION_STRINGS.daysRange],
      [{ ...good, days: '30' }, RETENTION_STRINGS.daysRange],
      [{ ...good, target: 'everything' }, RETENTION_STRINGS.unknownTarget],
      [{ ...good, action: 'shred' }, RETENTION_STRINGS.unknownAction],
      [{ ...good, channel: 'FAX' }, RETENTION_STRINGS.unknownChannel],
      [{ ...good, target: 'audit_log', action: 'anonymise' }, RETENTION_STRINGS.auditOnlyDelete],
      [{ ...good, target: 'audit_log', channel: 'EMAIL' }, RETENTION_STRINGS.channelNotForTarget],
      [{ ...good, target: 'visitor_data', channel: 'EMAIL' }, RETENTION_STRINGS.visitorOnlyLivechat],
    ];
    for (const [body, words] of bad) {
      for (const [method, path] of [
        ['POST', '/api/retention/rules'],
        ['POST', '/api/retention/preview'],
        ['PUT', `/api/retention/rules/${bRule}`],
      ] as const) {
        const r = await call(method, path, { token: method === 'PUT' ? b.token : a.token, body });
        expect(r.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(400);
        expect(r.text).toContain(words);
      }
    }
    // Another account's rule by id is not found, changed or removed.
    expect((await call('PUT', `/api/retention/rules/${bRule}`, { token: a.token, body: good })).status).toBe(404);
    expect((await call('DELETE', `/api/retention/rules/${bRule}`, { token: a.token })).status).toBe(404);
    expect((await call('POST', '/api/retention/rules', { token: agent.token, body: good })).status).toBe(403);
    expect(await count()).toBe(before);
    const still = await db()
      .selectFrom('retention_rules')
      .selectAll()
      .where('id', '=', bRule)
      .executeTakeFirstOrThrow();
    expect(Number(still.days)).toBe(30);
    // The edges are allowed.
    for (const days of [1, 3650]) {
      const id = await addRule(a, { ...good, days });
      expect(
        (await call('PUT', `/api/retention/rules/${id}`, { token: a.token, body: { ...good, days: 2 } })).status,
      ).toBe(200);
    }
    await removeRules(a);
    await removeRules(b);
  });
});

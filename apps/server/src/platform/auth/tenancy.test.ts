import crypto from 'node:crypto';
import Fastify from 'fastify';
import { sql } from 'kysely';
import { generate } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Secrets } from '../../modules/email/index.js';
import { type Answer, addUserVia, apiClient, type Call, signInVia, signUpVia, uniq } from '../../testing/api.js';
import { createWorkspaceVia, dialects, startTestServer } from '../../testing/support.js';
import type { Dialect } from '../db/db.js';
import { installAuthGuard, type RouteAuth } from './guard.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;

/** The part of a JSON schema (as the OpenAPI document carries it) that is needed to make up a value. */
interface Schema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  items?: Schema;
  properties?: Record<string, Schema>;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
}
interface Operation {
  parameters?: { in: string; name: string; schema?: Schema }[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}
interface OpenApi {
  paths: Record<string, Record<string, Operation>>;
}

const AUTHS: RouteAuth[] = ['public', 'optional', 'user', 'admin'];
/** The walk's server seals mailbox passwords, so B's mailbox writes reach their handlers. */
const WALK_SECRETS_KEY = crypto.randomBytes(32).toString('base64');
const openApiPath = (url: string) => url.replace(/:(\w+)/g, '{$1}');
let made = 0;

/**
 * A value that passes the schema where it can, with every number set to `n` (one of the other account's
 * ids), so a field that names a row points at someone else's row.
 */
function sample(sch: Schema | undefined, n: number): unknown {
  if (!sch) return null;
  if (sch.const !== undefined) return sch.const;
  if (sch.enum) return sch.enum[0];
  const alt = sch.anyOf ?? sch.oneOf;
  if (alt) return sample(alt.find((x) => x.type !== 'null') ?? alt[0], n);
  if (sch.allOf) return Object.assign({}, ...sch.allOf.map((x) => sample(x, n)));
  const type = Array.isArray(sch.type) ? sch.type.find((t) => t !== 'null') : sch.type;
  switch (type) {
    case 'object':
      return Object.fromEntries(Object.entries(sch.properties ?? {}).map(([k, v]) => [k, sample(v, n)]));
    case 'array':
      return [sample(sch.items, n)];
    case 'boolean':
      return true;
    case 'integer':
    case 'number':
      return Math.min(Math.max(n, sch.minimum ?? n), sch.maximum ?? n);
    case 'string': {
      made++;
      if (sch.format === 'email') return `tenant-${made}@example.com`;
      const tries = [`tenant-${made}-sample`, '123456', '1234567890', 'ONLINE'];
      const ok = tries.find((t) => !sch.pattern || new RegExp(sch.pattern).test(t)) ?? tries[0]!;
      return ok.padEnd(sch.minLength ?? 0, 'x').slice(0, sch.maxLength ?? 1000);
    }
    default:
      return null;
  }
}

/** Account tables the walk does not compare before and after, each with the reason. */
const NOT_COMPARED: Record<string, string> = {
  event_receipts: "the relay writes them on its own while it delivers A's events, whatever B does",
};

/** The tables the walk uses, all read from the schema. */
function walkTables(schema: SchemaTable[]) {
  const accountTables = ['accounts', ...schema.filter((t) => t.accountScoped).map((t) => t.name)];
  const withIds = new Set(schema.filter((t) => t.idSequence).map((t) => t.name));
  return {
    /** Their ids are raised half-way, so A's and B's ids never coincide. */
    raised: [...withIds],
    /** A's ids are collected from them, to be tried by B. */
    scanned: accountTables.filter((t) => withIds.has(t)),
    /** A's rows in them must be the same after the walk. */
    compared: accountTables.filter((t) => !(t in NOT_COMPARED)),
  };
}

/** One table of the database as the schema itself describes it. */
interface SchemaTable {
  name: string;
  /** It holds an `account_id` column: its rows belong to one account. */
  accountScoped: boolean;
  /** It has an `id` column that a sequence fills (SQLite AUTOINCREMENT, a Postgres serial). */
  idSequence: boolean;
}

/**
 * Reads the tables from the database's own catalogue, so a table added by a later migration is walked without
 * editing this test.
 */
async function readSchema(s: Server, dialect: Dialect): Promise<SchemaTable[]> {
  const db = s.handle.db;
  const rows =
    dialect === 'postgres'
      ? (
          await sql<{ name: string; col: string; seq: string | null }>`
            select c.table_name as name, c.column_name as col,
              pg_get_serial_sequence(quote_ident(c.table_name), c.column_name) as seq
            from information_schema.columns c
            join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
            where c.table_schema = current_schema() and t.table_type = 'BASE TABLE'`.execute(db)
        ).rows
      : (
          await sql<{ name: string; col: string; ddl: string | null }>`
            select m.name as name, p.name as col, m.sql as ddl
            from sqlite_master m join pragma_table_info(m.name) p
            where m.type = 'table' and m.name not like 'sqlite_%'`.execute(db)
        ).rows.map((r) => ({
          name: r.name,
          col: r.col,
          // Only an AUTOINCREMENT table takes its next id from sqlite_sequence.
          seq: r.col === 'id' && /\bautoincrement\b/i.test(r.ddl ?? '') ? 'sqlite_sequence' : null,
        }));
  const tables = new Map<string, SchemaTable>();
  for (const r of rows) {
    const t = tables.get(r.name) ?? { name: r.name, accountScoped: false, idSequence: false };
    if (r.col === 'account_id') t.accountScoped = true;
    if (r.col === 'id' && r.seq) t.idSequence = true;
    tables.set(r.name, t);
  }
  return [...tables.values()].sort((x, y) => x.name.localeCompare(y.name));
}

/** Routes whose path parameters are not all ids: the URLs to try, given one of A's ids. */
const PATHS: Record<string, (id: number) => string> = {
  '/ticket/load/:token/:filter/:type/:offset': () => '/ticket/load/x/all/ticket/0',
  '/api/ticket/load/:token/:filter/:type/:offset': () => '/api/ticket/load/x/open/ticket/0',
  '/ticket/load2/department/:status/ticket/:offset/:id': (id) => `/ticket/load2/department/all/ticket/0/${id}`,
  '/ticket/load2/label/:status/ticket/:offset/:id': (id) => `/ticket/load2/label/all/ticket/0/${id}`,
  '/files/:key/:name': (id) => `/files/${String(id).padStart(22, 'k')}/file.png`,
  '/cdn/avatar/:uid/:file_name': (id) => `/cdn/avatar/user${id}/${String(id).padStart(22, 'k')}`,
};

/** Makes every id created from now on larger than `to`, so the two accounts' ids never coincide. */
async function raiseIds(s: Server, dialect: Dialect, tables: string[], to: number) {
  const db = s.handle.db;
  for (const t of tables) {
    if (dialect === 'postgres') await sql`select setval(pg_get_serial_sequence(${t}, 'id'), ${to})`.execute(db);
    else {
      await sql`delete from sqlite_sequence where name = ${t}`.execute(db);
      await sql`insert into sqlite_sequence (name, seq) values (${t}, ${to})`.execute(db);
    }
  }
}

describe.each(dialects)('tenant isolation over the whole route table (%s)', (dialect) => {
  let s: Server;
  let call: Call;
  const db = () => s.handle.db;
  const doc = () => s.app.swagger() as unknown as OpenApi;

  beforeAll(async () => {
    s = await startTestServer(dialect);
    call = apiClient(s.url);
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('every route declares who may call it, and the guard enforces it', async () => {
    const table = s.app.routeTable;
    expect(table.length).toBeGreaterThan(10);
    for (const r of table) expect(AUTHS, `${r.method} ${r.url}`).toContain(r.auth);
    // Every documented route is in the table, so none slipped past the declaration.
    for (const [path, ops] of Object.entries(doc().paths))
      for (const method of Object.keys(ops))
        expect(
          table.some((r) => openApiPath(r.url) === path && r.method === method.toUpperCase()),
          `${method} ${path}`,
        ).toBe(true);
    // A route without a declaration stops start-up.
    const bare = Fastify();
    installAuthGuard(bare, db());
    expect(() => bare.get('/undeclared', async () => 'x')).toThrow(/must declare config.auth/);
    await bare.close();

    const a = await signUpVia(call);
    const agent = await addUserVia(call, a.token, { username: `guard-${uniq()}`, type: 'agent' });
    for (const r of table.filter((x) => x.auth === 'user' || x.auth === 'admin')) {
      const url = r.url.replace(/:\w+/g, '1');
      const what = `${r.method} ${r.url}`;
      expect(
        (await call(r.method, url, { body: r.method === 'GET' || r.method === 'HEAD' ? undefined : {} })).status,
        what,
      ).toBe(401);
      expect((await call(r.method, url, { token: 'not-a-token', body: undefined })).status, what).toBe(401);
      if (r.auth === 'admin') expect((await call(r.method, url, { token: agent.token })).status, what).toBe(403);
    }
    // Three calls for each of several hundred routes: past the 30 s default on a loaded machine.
  }, 120_000);

  it('the walk knows every table of the schema that holds account data', async () => {
    const schema = await readSchema(s, dialect);
    const { raised, scanned, compared } = walkTables(schema);
    // The catalogue was really read: tables without an id of their own and the newest ones are there.
    for (const t of ['chat_members', 'ticket_reads', 'sla_timers', 'ticket_labels', 'department_assignment'])
      expect(compared, t).toContain(t);
    expect(raised).toContain('rate_limit_hits');
    expect(raised).toContain('tickets');
    expect(scanned).toContain('accounts');
    // Every table holding account data is compared, or left out for a stated reason.
    const missed = schema
      .filter((t) => t.accountScoped && !compared.includes(t.name) && !(t.name in NOT_COMPARED))
      .map((t) => t.name);
    expect(missed).toEqual([]);
    for (const t of Object.keys(NOT_COMPARED))
      expect(
        schema.some((x) => x.name === t && x.accountScoped),
        t,
      ).toBe(true);
    // Every table with an id sequence is raised, and every one A's ids are taken from has one.
    expect(raised.sort()).toEqual(schema.filter((t) => t.idSequence).map((t) => t.name));
    for (const t of scanned) expect(raised, t).toContain(t);
  });

  it("no signed-in route shows or changes another account's data", async () => {
    // Its own server: account A is the first-run workspace, and the ids are raised half-way. A long presence
    // grace: A's agent chose a status over HTTP with no socket, and a walk slower than the grace (a busy
    // machine) would otherwise see the presence sweep set them Offline, a change no call of B made.
    // The inbound SMTP listener on: mailboxes answer their forwarding addresses, whose token is A's secret.
    // The sandbox payment provider, so B's payments reach the handlers (B's own rows; A's refs are not found).
    const own = await startTestServer(dialect, {
      PRESENCE_GRACE_MS: '600000',
      SECRETS_KEY: WALK_SECRETS_KEY,
      INBOUND_SMTP_PORT: '0',
      PAYMENT_PROVIDER: 'sandbox',
      // A language model's Test may name this closed loopback port (it answers "failed", reaching nothing).
      AI_ALLOWED_HOSTS: '127.0.0.1:1',
      AI_TIMEOUT_MS: '1000',
    });
    try {
      await walkAsAnotherAccount(own);
    } finally {
      await own.stop();
    }
    // Thousands of calls and two snapshots of every account table: 7-20 s here, 30-105 s on a loaded machine,
    // past the 30 s default; the limit is generous because the walk proves isolation, not speed.
  }, 300_000);

  async function walkAsAnotherAccount(s: Server) {
    const call = apiClient(s.url);
    const db = () => s.handle.db;
    const operation = (method: string, url: string) =>
      (s.app.swagger() as unknown as OpenApi).paths[openApiPath(url)]?.[method.toLowerCase()];
    // Account A: its admin, an agent with 2FA, a department, a status update, several sessions, a hand-off token.
    const sfx = uniq();
    const a = await createWorkspaceVia(s.url, sfx);
    const agent = await addUserVia(call, a.token, {
      username: `alf-${sfx}`,
      name: `Alf ${sfx}`,
      email: `alf-${sfx}@example.com`,
      type: 'agent',
    });
    const ua = `ua-a-${sfx}`;
    const extra = await signInVia(call, a.username, a.password, { headers: { 'user-agent': ua } });
    const reason = `reason-a-${sfx}`;
    expect(
      (await call('POST', '/api/online_status/update', { token: agent.token, body: { status: 'BUSY', reason } }))
        .status,
    ).toBe(200);
    const { secret } = (
      await call('POST', '/api/user/2fa/setup', { token: agent.token, body: { password: agent.password } })
    ).body;
    const enabled = await call('POST', '/api/user/2fa/enable', {
      token: agent.token,
      body: { code: await generate({ secret }) },
    });
    const handoff = (await call('POST', '/api/oauth/token', { token: a.token })).body.token as string;
    const aAccountId = (await call('POST', '/api/auth/check', { token: a.token })).body.accountId as number;
    const dept = `dept-a-${sfx}`;
    await db()
      .insertInto('departments')
      .values({ account_id: aAccountId, name: dept, created_at: Date.now() })
      .execute();
    const label = `label-a-${sfx}`;
    await db()
      .insertInto('labels')
      .values({
        account_id: aAccountId,
        name: label,
        color: '#000000',
        color_dark: '#FFFFFF',
        level: 1,
        sla: 30,
        removed: 0,
        created_at: Date.now(),
      })
      .execute();
    const idOf = async (t: 'departments' | 'labels', name: string) =>
      Number(
        (
          await db()
            .selectFrom(t)
            .select('id')
            .where('account_id', '=', aAccountId)
            .where('name', '=', name)
            .executeTakeFirstOrThrow()
        ).id,
      );
    const campaign = `campaign-a-${sfx}`;
    const camp = await db()
      .insertInto('campaigns')
      .values({ account_id: aAccountId, name: campaign, created_at: Date.now() })
      .returning('id')
      .executeTakeFirstOrThrow();
    const ticketTitle = `ticket-a-${sfx}`;
    await db()
      .insertInto('tickets')
      .values({
        account_id: aAccountId,
        ticket_number: 1,
        title: ticketTitle,
        channel: 'EMAIL',
        closed: 0,
        priority: 'M',
        label: JSON.stringify([await idOf('labels', label)]),
        department_id: await idOf('departments', dept),
        campaign_id: Number(camp.id),
        assignee: agent.username,
        name: `customer-a-${sfx}`,
        email: `customer-a-${sfx}@example.net`,
        phone: '',
        created_at: Date.now(),
        updated_at: Date.now(),
      })
      .execute();

    // Two contacts of A's, one merged into the other (the merge can be undone), the ticket on the kept one.
    const contactOf = async (name: string, email: string, merged: number | null) => {
      const c = await db()
        .insertInto('contacts')
        .values({
          account_id: aAccountId,
          name,
          name_lower: name.toLowerCase(),
          merged_into: merged,
          last_seen_at: Date.now(),
          created_at: Date.now(),
          updated_at: Date.now(),
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await db()
        .insertInto('contact_identifiers')
        .values({
          account_id: aAccountId,
          contact_id: Number(c.id),
          kind: 'email',
          value: email,
          verified: 1,
          created_at: Date.now(),
        })
        .execute();
      return Number(c.id);
    };
    const keptContact = await contactOf(`customer-a-${sfx}`, `customer-a-${sfx}@example.net`, null);
    const mergedContact = await contactOf(`contact-a-${sfx}`, `contact-a-${sfx}@example.net`, keptContact);
    await db().updateTable('tickets').set({ contact_id: keptContact }).where('account_id', '=', aAccountId).execute();
    await db()
      .insertInto('contact_merges')
      .values({
        account_id: aAccountId,
        kept_id: keptContact,
        merged_id: mergedContact,
        identifier_ids: '[]',
        ticket_ids: '[]',
        kept_last_seen_at: 0,
        created_by: agent.id,
        created_at: Date.now(),
        undone_at: null,
      })
      .execute();

    // A's ticket's satisfaction survey, answered (its token is A's customer's).
    const aTicket = await db()
      .selectFrom('tickets')
      .select('id')
      .where('account_id', '=', aAccountId)
      .executeTakeFirstOrThrow();
    await db()
      .insertInto('ticket_surveys')
      .values({
        account_id: aAccountId,
        ticket_id: Number(aTicket.id),
        token: `survey-token-a-${sfx}`,
        rating: 5,
        comment: `survey-comment-a-${sfx}`,
        created_at: Date.now(),
        answered_at: Date.now(),
      })
      .execute();
    // A's case with its ticket and a note on its timeline.
    const aCase = await db()
      .insertInto('cases')
      .values({
        account_id: aAccountId,
        title: `case-a-${sfx}`,
        case_type: '',
        stage: 'new',
        owner_id: agent.id,
        contact_id: keptContact,
        due_at: null,
        created_by: agent.id,
        created_at: Date.now(),
        updated_at: Date.now(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db()
      .insertInto('case_tickets')
      .values({
        account_id: aAccountId,
        case_id: Number(aCase.id),
        ticket_id: Number(aTicket.id),
        created_at: Date.now(),
      })
      .execute();
    await db()
      .insertInto('case_events')
      .values({
        account_id: aAccountId,
        case_id: Number(aCase.id),
        kind: 'note',
        text: `case-note-a-${sfx}`,
        user_id: agent.id,
        created_at: Date.now(),
      })
      .execute();
    // A's agent's time on A's ticket: a finished entry with a note, and a running timer.
    for (const ended of [Date.now(), null])
      await db()
        .insertInto('time_entries')
        .values({
          account_id: aAccountId,
          ticket_id: Number(aTicket.id),
          user_id: agent.id,
          work_day: new Date().toISOString().slice(0, 10),
          started_at: Date.now(),
          ended_at: ended,
          seconds: ended === null ? 0 : 600,
          note: `time-note-a-${sfx}`,
          source: ended === null ? 'timer' : 'manual',
          created_at: Date.now(),
          updated_at: Date.now(),
        })
        .execute();
    // A's calendar event and an agent's private feed.
    await db()
      .insertInto('calendar_events')
      .values({
        account_id: aAccountId,
        title: `event-a-${sfx}`,
        starts_at: Date.now(),
        ends_at: Date.now() + 3_600_000,
        all_day: 0,
        notes: '',
        contact_id: keptContact,
        ticket_id: null,
        created_by: agent.id,
        created_at: Date.now(),
        updated_at: Date.now(),
      })
      .execute();
    await db()
      .insertInto('calendar_feeds')
      .values({ account_id: aAccountId, user_id: agent.id, token: `feed-token-a-${sfx}`, created_at: Date.now() })
      .execute();
    // A's custom form with an entry (its public token is A's secret too).
    const aForm = await db()
      .insertInto('forms')
      .values({
        account_id: aAccountId,
        name: `form-a-${sfx}`,
        main: 0,
        token: `form-token-a-${sfx}`,
        active: 1,
        fields: JSON.stringify([{ key: 'email', label: `label-a-${sfx}`, type: 'email', required: true, options: [] }]),
        start_index: 1,
        data_per_page: 20,
        created_at: Date.now(),
        updated_at: Date.now(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db()
      .insertInto('form_entries')
      .values({
        account_id: aAccountId,
        form_id: Number(aForm.id),
        form_data: JSON.stringify({ email: `entry-a-${sfx}@example.net` }),
        ticket_id: null,
        created_at: Date.now(),
      })
      .execute();

    // Canned replies (shared and personal), a macro naming A's label and agent, and a run of it.
    const canned = `canned-a-${sfx}`;
    const macroName = `macro-a-${sfx}`;
    for (const owner of [0, agent.id])
      await db()
        .insertInto('canned_replies')
        .values({
          account_id: aAccountId,
          owner_id: owner,
          title: `${canned}-${owner}`,
          shortcut: `${canned}-${owner}`,
          shortcut_lower: `${canned}-${owner}`,
          body: `${canned} body`,
          channels: '[]',
          created_by: agent.id,
          created_at: Date.now(),
          updated_at: Date.now(),
        })
        .execute();
    const macro = await db()
      .insertInto('macros')
      .values({
        account_id: aAccountId,
        name: macroName,
        name_lower: macroName,
        actions: JSON.stringify([{ type: 'add_labels', labels: [await idOf('labels', label)] }]),
        created_by: agent.id,
        created_at: Date.now(),
        updated_at: Date.now(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db()
      .insertInto('macro_runs')
      .values({
        account_id: aAccountId,
        macro_id: Number(macro.id),
        user_id: agent.id,
        changes: '[]',
        created_at: Date.now(),
        undone_at: null,
      })
      .execute();
    // An automation rule of A naming A's label, a run of it and the chain of an event it caused.
    const ruleName = `rule-a-${sfx}`;
    const rule = await db()
      .insertInto('automation_rules')
      .values({
        account_id: aAccountId,
        name: ruleName,
        position: 1,
        enabled: 1,
        event: 'customer_message',
        conditions: JSON.stringify([{ field: 'text', contains: `rule-text-a-${sfx}` }]),
        actions: JSON.stringify([{ type: 'add_labels', labels: [await idOf('labels', label)] }]),
        author_id: agent.id,
        created_at: Date.now(),
        updated_at: Date.now(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db()
      .insertInto('automation_runs')
      .values({
        account_id: aAccountId,
        rule_id: Number(rule.id),
        event_id: 1,
        event: 'customer_message',
        ticket_id: 1,
        ticket_number: 1,
        outcome: 'applied',
        matched: JSON.stringify([`rule-matched-a-${sfx}`]),
        did: '[]',
        reason: '',
        created_at: Date.now(),
      })
      .execute();
    await db()
      .insertInto('automation_chains')
      .values({
        event_id: 987_654_321,
        account_id: aAccountId,
        chain: JSON.stringify([Number(rule.id)]),
        created_at: Date.now(),
      })
      .execute();
    // A's business hours, holiday and SLA policy (their tables are compared like every account table).
    const holiday = `holiday-a-${sfx}`;
    const policy = `policy-a-${sfx}`;
    await db()
      .insertInto('business_hours')
      .values({
        account_id: aAccountId,
        department_id: 0,
        timezone: 'Europe/Berlin',
        days: '[[],[],[],[],[],[],[]]',
        updated_at: Date.now(),
      })
      .execute();
    await db()
      .insertInto('holidays')
      .values({
        account_id: aAccountId,
        department_id: await idOf('departments', dept),
        date: '2026-12-24',
        name: holiday,
      })
      .execute();
    await db()
      .insertInto('sla_policies')
      .values({
        account_id: aAccountId,
        position: 0,
        name: policy,
        priority: 'H',
        channel: null,
        label_id: await idOf('labels', label),
        department_id: null,
        first_response: 60,
        next_response: null,
        resolution: null,
        calendar: 0,
        created_at: Date.now(),
      })
      .execute();

    // A's mailbox, sealed with the walk server's SECRETS_KEY, and a Message-ID of A's ticket. Inactive: a
    // fetcher would change its row (fetch state) while the walk compares it.
    const mailboxAddress = `mailbox-a-${sfx}@example.net`;
    const mailboxUser = `imap-user-a-${sfx}`;
    const inboundToken = crypto.randomBytes(10).toString('hex');
    const dkimSelector = `dkim-a-${sfx}`;
    const aTicketId = Number(
      (
        await db()
          .selectFrom('tickets')
          .select('id')
          .where('account_id', '=', aAccountId)
          .where('title', '=', ticketTitle)
          .executeTakeFirstOrThrow()
      ).id,
    );
    // What A's supervisory board shows (B's `GET /api/supervisory` must show none of it): a visitor waiting in
    // A's department, and A's ticket's SLA wait due in a minute (no `next_at`: the SLA check leaves it alone).
    const aVisitor = await db()
      .insertInto('livechat_visitors')
      .values({ account_id: aAccountId, csrf_hash: `visitor-hash-a-${sfx}`, created_at: Date.now() })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db()
      .insertInto('livechats')
      .values({
        account_id: aAccountId,
        visitor_id: Number(aVisitor.id),
        session_id: Number(aVisitor.id),
        state: 'queued',
        name: `visitor-a-${sfx}`,
        phone: '',
        email: '',
        message: `visitor-message-a-${sfx}`,
        department_id: await idOf('departments', dept),
        queued_at: Date.now(),
      })
      .execute();
    await db()
      .insertInto('sla_timers')
      .values({
        ticket_id: aTicketId,
        account_id: aAccountId,
        label_id: 0,
        sla_minutes: 60,
        started_at: Date.now(),
        warn_at: Date.now(),
        due_at: Date.now() + 60_000,
        warned_at: null,
        violated_at: null,
        answered_at: null,
        next_at: null,
        updated_at: Date.now(),
        paused_at: null,
      })
      .execute();
    const mailbox = await db()
      .insertInto('mailboxes')
      .values({
        account_id: aAccountId,
        address: mailboxAddress,
        address_lower: mailboxAddress,
        name: `Mailbox A ${sfx}`,
        department_id: await idOf('departments', dept),
        active: 0,
        imap_host: 'imap.a.example',
        imap_port: 993,
        imap_tls: 1,
        imap_user: mailboxUser,
        imap_secret: new Secrets(WALK_SECRETS_KEY).seal(aAccountId, 'a imap password'),
        smtp_host: 'smtp.a.example',
        smtp_port: 465,
        smtp_tls: 1,
        smtp_user: mailboxUser,
        smtp_secret: '',
        inbound_token: inboundToken,
        dkim_selector: dkimSelector,
        dkim_secret: new Secrets(WALK_SECRETS_KEY).seal(aAccountId, 'a dkim key'),
        created_at: Date.now(),
        updated_at: Date.now(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    // A's Microsoft 365 mailbox, subscribed: its notifications come to a public route that B can post to too.
    // Its lease is held elsewhere, so this server's Graph rounds leave the row alone.
    const graphSubscription = `sub-a-${sfx}`;
    const graphClientState = `client-state-a-${sfx}`;
    const sealer = new Secrets(WALK_SECRETS_KEY);
    await db()
      .insertInto('mailboxes')
      .values({
        account_id: aAccountId,
        kind: 'graph',
        address: `m365-a-${sfx}@example.net`,
        address_lower: `m365-a-${sfx}@example.net`,
        name: `Microsoft 365 A ${sfx}`,
        department_id: null,
        active: 1,
        imap_host: '',
        imap_port: 0,
        imap_tls: 1,
        imap_user: '',
        imap_secret: '',
        smtp_host: '',
        smtp_port: 0,
        smtp_tls: 1,
        smtp_user: '',
        smtp_secret: '',
        graph_tenant_id: `tenant-a-${sfx}`,
        graph_client_id: `client-a-${sfx}`,
        graph_secret: sealer.seal(aAccountId, 'a graph secret'),
        graph_subscription_id: graphSubscription,
        graph_subscription_until: Date.now() + 86_400_000 * 2,
        graph_client_state: sealer.seal(aAccountId, graphClientState),
        lease_owner: 'elsewhere',
        lease_until: Date.now() + 86_400_000,
        created_at: Date.now(),
        updated_at: Date.now(),
      })
      .execute();
    await db()
      .insertInto('email_message_ids')
      .values({
        account_id: aAccountId,
        message_id: `mid-a-${sfx}@example.net`,
        ticket_id: aTicketId,
        mailbox_id: Number(mailbox.id),
        message_row_id: null,
        direction: 'in',
        created_at: Date.now(),
      })
      .execute();
    // A's WhatsApp connection (its token sealed) and a provider message id of A's ticket.
    const aChannel = await db()
      .insertInto('channel_connections')
      .values({
        account_id: aAccountId,
        kind: 'whatsapp',
        name: `WhatsApp A ${sfx}`,
        department_id: null,
        active: 1,
        settings: JSON.stringify({ phoneNumberId: '1065403522' }),
        secrets: JSON.stringify({
          accessToken: sealer.seal(aAccountId, 'a access token'),
          appSecret: sealer.seal(aAccountId, 'a app secret'),
        }),
        webhook_key: `webhook-key-a-${sfx}`,
        verify_token: `verify-token-a-${sfx}`,
        last_error: null,
        last_error_at: null,
        last_event_at: null,
        created_at: Date.now(),
        updated_at: Date.now(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    // A's public dashboard link and an export link of A's admin.
    await db()
      .insertInto('report_dashboards')
      .values({
        account_id: aAccountId,
        name: `dashboard-a-${sfx}`,
        token_hash: `dashboard-hash-a-${sfx}`,
        created_by: 'a',
        created_at: Date.now(),
      })
      .execute();
    await db()
      .insertInto('report_export_tokens')
      .values({
        account_id: aAccountId,
        user_id: agent.id,
        token_hash: `export-hash-a-${sfx}`,
        expires_at: Date.now() + 600_000,
      })
      .execute();
    // A's single sign-on: B may not read, change, test or remove it.
    await db()
      .insertInto('sso_configs')
      .values({
        account_id: aAccountId,
        slug: `sso-a-${sfx}`,
        kind: 'oidc',
        enabled: 1,
        sso_only: 0,
        jit_type: 'agent',
        jit_department_id: null,
        oidc_issuer: `https://idp-a-${sfx}.example`,
        oidc_client_id: `client-a-${sfx}`,
        oidc_client_secret: 'v1.sealed-a',
        oidc_scopes: 'openid email',
        updated_by: agent.id,
        created_at: Date.now(),
        updated_at: Date.now(),
      })
      .execute();
    // A's API token (of A's agent), A's webhook and a delivery in its log: B may not list, revoke, change,
    // read or redeliver them by id.
    await db()
      .insertInto('api_tokens')
      .values({
        account_id: aAccountId,
        user_id: agent.id,
        kind: 'personal',
        name: `token-a-${sfx}`,
        token_hash: `api-token-hash-a-${sfx}`,
        hint: 'prl_aaaa',
        scopes: '["read","write"]',
        created_at: Date.now(),
        last_used_at: null,
        revoked_at: null,
      })
      .execute();
    // A's language model with its sealed key: B's settings, Test and /api/wauchat never reach them.
    await db()
      .insertInto('ai_settings')
      .values({
        account_id: aAccountId,
        provider: 'openai',
        base_url: `https://llm-a-${sfx}.example/v1`,
        model: `model-a-${sfx}`,
        key_sealed: new Secrets(WALK_SECRETS_KEY).seal(aAccountId, `sk-a-key-${sfx}`),
        key_last4: 'qQzZ',
        translator: 'openai',
        updated_by: null,
        updated_at: Date.now(),
      })
      .execute();
    const aHook = await db()
      .insertInto('webhooks')
      .values({
        account_id: aAccountId,
        url: `https://hooks.a.example/${sfx}`,
        events: '["ticket.created"]',
        secret: `whsec_a_${sfx}`,
        active: 0,
        created_by: agent.id,
        created_at: Date.now(),
        updated_at: Date.now(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db()
      .insertInto('webhook_deliveries')
      .values({
        account_id: aAccountId,
        webhook_id: Number(aHook.id),
        event: 'ticket.created',
        body: `{"secret-of-a":"${sfx}"}`,
        state: 'failed',
        attempts: 1,
        status_code: 500,
        error: 'HTTP 500',
        created_at: Date.now(),
        last_attempt_at: Date.now(),
        redelivery_of: null,
      })
      .execute();
    // A reply of A's agent waiting for its time.
    await db()
      .insertInto('scheduled_messages')
      .values({
        account_id: aAccountId,
        ticket_id: aTicketId,
        user_id: agent.id,
        sender: agent.username,
        sender_name: 'A agent',
        message: `scheduled-a-${sfx}`,
        send_at: Date.now() + 86_400_000,
        state: 'pending',
        error: null,
        message_row_id: null,
        created_at: Date.now(),
        updated_at: Date.now(),
      })
      .execute();
    await db()
      .insertInto('channel_message_ids')
      .values({
        account_id: aAccountId,
        connection_id: Number(aChannel.id),
        provider_id: `wamid.a-${sfx}`,
        ticket_id: aTicketId,
        message_row_id: null,
        direction: 'in',
        created_at: Date.now(),
      })
      .execute();
    // A customer's reply token on A's connection (LINE keeps one per peer; a send takes it).
    await db()
      .insertInto('channel_reply_tokens')
      .values({
        account_id: aAccountId,
        connection_id: Number(aChannel.id),
        peer: `peer-a-${sfx}`,
        token: `reply-token-a-${sfx}`,
        at: Date.now(),
      })
      .execute();
    // A message of A's, for the search to be asked for by B.
    const messageText = `message-a-${sfx}`;
    let aInstrumentId = 0;
    await db()
      .insertInto('messages')
      .values({
        account_id: aAccountId,
        ticket_id: aTicketId,
        type: 'text',
        message: messageText,
        sender: agent.username,
        client_id: null,
        created_at: Date.now(),
        reply_id: null,
        deleted_at: null,
        deleted_by: null,
        email_meta: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow()
      .then(async (m) => {
        // A's trading watch list and a mention of it in that message (B's trading routes show none of it).
        const ins = await db()
          .insertInto('trading_instruments')
          .values({
            account_id: aAccountId,
            symbol: 'AQZZ',
            name: `instrument-a-${sfx}`,
            aliases: JSON.stringify([`alias-a-${sfx}`]),
            created_at: Date.now(),
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        aInstrumentId = Number(ins.id);
        await db()
          .insertInto('trading_mentions')
          .values({
            account_id: aAccountId,
            instrument_id: Number(ins.id),
            message_id: Number(m.id),
            ticket_id: aTicketId,
            channel: 'EMAIL',
            sentiment: 40,
            at: Date.now(),
            day: new Date().toISOString().slice(0, 10),
          })
          .execute();
      });

    // A's call on its ticket, with a transcript entry, and a DID's description (B's call routes show none).
    await db()
      .insertInto('calls')
      .values({
        account_id: aAccountId,
        ticket_id: aTicketId,
        call_id: `call-id-a-${sfx}`,
        user_id: agent.id,
        started_at: Date.now(),
        ended_at: null,
        energy: 50,
        pace: 25,
        personality: `personality-a-${sfx}`,
      })
      .execute();
    await db()
      .insertInto('call_transcripts')
      .values({
        account_id: aAccountId,
        ticket_id: aTicketId,
        source: 'customer',
        transcription: `transcript-a-${sfx}`,
        energy: null,
        pace: null,
        created_at: Date.now(),
      })
      .execute();
    await db()
      .insertInto('call_dids')
      .values({ account_id: aAccountId, did: `did-a-${sfx}`, description: `did-description-a-${sfx}` })
      .execute();
    // A's call flagged as a scam (B's Scam Calls feed, with the feature on, lists none of A's calls).
    await db()
      .insertInto('call_transcripts')
      .values({
        account_id: aAccountId,
        ticket_id: aTicketId,
        source: 'customer',
        transcription: `scam-line-a-${sfx}: read me the one-time code we just sent you.`,
        energy: null,
        pace: null,
        created_at: Date.now(),
      })
      .execute();
    await db()
      .insertInto('call_scams')
      .values({
        account_id: aAccountId,
        ticket_id: aTicketId,
        kind: 'credential_request',
        confidence: 84,
        flagged_at: Date.now(),
      })
      .execute();

    // A's knowledge base: its public token, a category, a published article with a question.
    const kbToken = crypto.randomBytes(18).toString('base64url');
    const kbWord = `kbarticle${sfx}`;
    await db()
      .insertInto('kb_sites')
      .values({ account_id: aAccountId, token: kbToken, created_at: Date.now() })
      .execute();
    const kbCategory = await db()
      .insertInto('kb_categories')
      .values({ account_id: aAccountId, type: 'kb', lang: 'en', name: `kb-category-a-${sfx}`, created_at: Date.now() })
      .returning('id')
      .executeTakeFirstOrThrow();
    const kbArticle = await db()
      .insertInto('kb_articles')
      .values({
        account_id: aAccountId,
        type: 'kb',
        lang: 'en',
        category_id: Number(kbCategory.id),
        slug: `kb-slug-a-${sfx}`,
        title: `${kbWord} title`,
        body: `kb body ${kbWord}`,
        status: 'published',
        created_by: agent.id,
        created_at: Date.now(),
        updated_by: agent.id,
        updated_at: Date.now(),
        published_at: Date.now(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db()
      .insertInto('kb_questions')
      .values({
        account_id: aAccountId,
        article_id: Number(kbArticle.id),
        position: 0,
        question: `kb-question-a-${sfx}`,
        answer: 'kb answer',
      })
      .execute();

    // A's product, linked to A's ticket and article.
    const aProduct = await db()
      .insertInto('products')
      .values({
        account_id: aAccountId,
        name: `product-a-${sfx}`,
        name_lower: `product-a-${sfx}`,
        code: `product-code-a-${sfx}`,
        code_lower: `product-code-a-${sfx}`,
        description: `product-description-a-${sfx}`,
        active: 1,
        created_by: agent.id,
        created_at: Date.now(),
        updated_at: Date.now(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db()
      .insertInto('product_tickets')
      .values({
        account_id: aAccountId,
        product_id: Number(aProduct.id),
        ticket_id: aTicketId,
        linked_by: agent.id,
        linked_at: Date.now(),
      })
      .execute();
    await db()
      .insertInto('product_articles')
      .values({
        account_id: aAccountId,
        product_id: Number(aProduct.id),
        article_id: Number(kbArticle.id),
        linked_by: agent.id,
        linked_at: Date.now(),
      })
      .execute();

    const markers = [
      messageText,
      `llm-a-${sfx}`,
      `model-a-${sfx}`,
      `sk-a-key-${sfx}`,
      'qQzZ',
      `sso-a-${sfx}`,
      `idp-a-${sfx}`,
      `client-a-${sfx}`,
      kbToken,
      kbWord,
      `kb-category-a-${sfx}`,
      `kb-slug-a-${sfx}`,
      `kb-question-a-${sfx}`,
      `product-a-${sfx}`,
      `product-code-a-${sfx}`,
      `product-description-a-${sfx}`,
      `call-id-a-${sfx}`,
      `personality-a-${sfx}`,
      `transcript-a-${sfx}`,
      `scam-line-a-${sfx}`,
      `instrument-a-${sfx}`,
      `alias-a-${sfx}`,
      `did-a-${sfx}`,
      `did-description-a-${sfx}`,
      mailboxAddress,
      mailboxUser,
      'a imap password',
      inboundToken,
      dkimSelector,
      'a dkim key',
      `m365-a-${sfx}`,
      `tenant-a-${sfx}`,
      'a graph secret',
      graphClientState,
      `WhatsApp A ${sfx}`,
      `scheduled-a-${sfx}`,
      `dashboard-a-${sfx}`,
      `webhook-key-a-${sfx}`,
      `verify-token-a-${sfx}`,
      'a access token',
      'a app secret',
      `reply-token-a-${sfx}`,
      holiday,
      policy,
      campaign,
      canned,
      macroName,
      ruleName,
      `rule-text-a-${sfx}`,
      `rule-matched-a-${sfx}`,
      ticketTitle,
      `customer-a-${sfx}`,
      `contact-a-${sfx}`,
      `form-a-${sfx}`,
      `form-token-a-${sfx}`,
      `survey-token-a-${sfx}`,
      `event-a-${sfx}`,
      `case-a-${sfx}`,
      `case-note-a-${sfx}`,
      `time-note-a-${sfx}`,
      `feed-token-a-${sfx}`,
      `survey-comment-a-${sfx}`,
      `visitor-a-${sfx}`,
      `visitor-message-a-${sfx}`,
      `label-a-${sfx}`,
      `entry-a-${sfx}`,
      a.username,
      a.email,
      a.company,
      a.name,
      agent.username,
      `alf-${sfx}@example.com`,
      `Alf ${sfx}`,
      ua,
      reason,
      dept,
      label,
      secret,
      ...enabled.body.backup_codes,
      a.token,
      a.refreshToken,
      agent.token,
      extra.body.token,
      extra.body.refresh_token,
      handoff,
    ] as string[];
    const tables = walkTables(await readSchema(s, dialect));
    const aIds = new Set<number>();
    for (const t of tables.scanned) {
      const q = db()
        .selectFrom(t as 'users')
        .select('id');
      const rows = await (t === 'accounts'
        ? q.where('id', '=', aAccountId)
        : q.where('account_id', '=', aAccountId)
      ).execute();
      for (const r of rows) aIds.add(Number(r.id));
    }
    const candidates = [...aIds].filter((id) => id < 1000).sort((x, y) => x - y);
    expect(candidates.length).toBeGreaterThan(2);
    await raiseIds(s, dialect, tables.raised, 1000);

    const snapshot = async () => {
      const out: Record<string, unknown[]> = {};
      for (const t of tables.compared) {
        if (t === 'events') {
          // The relay marks delivery on its own; what the event says must not change.
          out[t] = await db()
            .selectFrom('events')
            .select(['id', 'seq', 'type', 'payload'])
            .where('account_id', '=', aAccountId)
            .orderBy('id')
            .execute();
          continue;
        }
        const q = db()
          .selectFrom(t as 'users')
          .selectAll();
        const rows = await (t === 'accounts'
          ? q.where('id', '=', aAccountId)
          : q.where('account_id', '=', aAccountId)
        ).execute();
        // Some tables have no id: rows are put in one order by their whole content.
        out[t] = rows.map((r) => JSON.stringify(r)).sort();
      }
      return out;
    };
    const before = await snapshot();

    // Account B, whose admin walks the whole table with A's ids.
    const b = await signUpVia(call);
    // B has Scam Calls, so its feed is walked, not refused.
    await db().updateTable('accounts').set({ features: '["scam_calls"]' }).where('id', '=', b.accountId).execute();
    // A customer's message of B's own, for B to ask the AI about with A's words (what to say finds none of A's).
    const bTicket = await db()
      .insertInto('tickets')
      .values({
        account_id: b.accountId,
        ticket_number: 1,
        title: 'b ticket',
        channel: 'EMAIL',
        closed: 0,
        priority: '',
        label: '[]',
        department_id: null,
        assignee: '',
        name: 'B customer',
        email: 'customer@b.example',
        phone: '',
        created_at: Date.now(),
        updated_at: Date.now(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const bMessage = await db()
      .insertInto('messages')
      .values({
        account_id: b.accountId,
        ticket_id: Number(bTicket.id),
        type: 'text',
        message: 'b question',
        sender: 'visitor',
        client_id: null,
        created_at: Date.now(),
        reply_id: null,
        deleted_at: null,
        deleted_by: null,
        email_meta: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    let bToken = b.token;
    let pendingSecret: string | null = null;
    let bSecret: string | null = null;
    const signInB = async () => {
      // A TOTP code works once: this walk may sign B in more than once in one 30-second step.
      await db().updateTable('users').set({ totp_last_step: 0 }).where('username', '=', b.username).execute();
      const r = await signInVia(
        call,
        b.username,
        b.password,
        bSecret ? { tfa: await generate({ secret: bSecret }) } : {},
      );
      expect(r.status, r.text).toBe(200);
      bToken = r.body.token;
    };
    const bRule = { name: 'b rule', event: 'ticket_created', actions: [{ type: 'priority', priority: 'L' }] };
    const known: Record<string, () => Promise<unknown>> = {
      'POST /api/users': async () => ({
        username: `b-${uniq()}`,
        name: 'B user',
        password: 'user password 1',
        type: 'agent',
      }),
      'PATCH /api/users/:id': async () => ({
        name: 'Taken over',
        active: false,
        type: 'agent',
        rank: 9,
        permission: [],
      }),
      'PUT /api/account/security': async () => ({ require_2fa: true }),
      'POST /api/user/password': async () => ({ current: b.password, password: b.password }),
      'POST /api/user/2fa/setup': async () => ({ password: b.password }),
      'POST /api/user/2fa/enable': async () => ({
        code: pendingSecret ? await generate({ secret: pendingSecret }) : '123456',
      }),
      'POST /api/user/2fa/disable': async () => ({ password: b.password }),
      'POST /api/online_status/update': async () => ({ status: 'AWAY', reason: 'b reason' }),
      // A sampled expires_at is a small number, a time long past: refused.
      'POST /api/announcement': async () => ({ message: 'b announcement' }),
      // Sampled colours are not colours: a good new label reaches the handler.
      // A fingerprint is all an AES key publishes; an RSA key is a real PEM (the walk's bodies are not).
      'POST /api/encryption/keys': async () => ({
        method: 'aes',
        key_type: 'fingerprint',
        key_value: '0123456789abcdef',
      }),
      'POST /api/label/update': async () => ({
        labelArray: [{ name: 'b label', color: '#111111', colorDark: '#EEEEEE', level: 1, sla: 5 }],
        delete: [],
      }),
      'POST /api/settings/update': async () => ({ action: 'duration', day: 5 }),
      // Sampled time zones, times and dates are not real ones: B's own good settings reach the handlers.
      'POST /api/sla/business_hours': async () => ({
        departmentId: null,
        timezone: 'UTC',
        days: [[], [], [], [], [], [], []],
      }),
      'POST /api/sla/holidays': async () => ({ departmentId: null, holidays: [{ date: '2026-12-25', name: 'b' }] }),
      'POST /api/sla/policies': async () => ({
        policies: [
          {
            name: 'b policy',
            priority: null,
            channel: null,
            labelId: null,
            departmentId: null,
            firstResponse: 5,
            nextResponse: null,
            resolution: null,
            calendar: true,
          },
        ],
      }),
      'POST /api/sla/business_hours/delete': async () => {
        const dep = await call('POST', '/api/departments', { token: bToken, body: { name: `b-dep-${uniq()}` } });
        return { departmentId: dep.body.data.id };
      },
      // A sampled string is not a ws:// address: a good one reaches the handler.
      'POST /api/call/config': async () => ({ sip_ws_url: 'wss://pbx.b.example/ws' }),
      // Tokens in the body must not outrank the caller's Bearer token.
      'POST /api/auth/check': async () => ({ _token: a.token, refresh_token: a.refreshToken }),
      // Sampled e-mails and phones are not valid: a plain ticket of B's own reaches the handler.
      'POST /api/ticket/create': async () => ({ title: 'b ticket' }),
      // "Select all matching" picks from the caller's own account: B's tickets, never A's.
      'POST /api/ticket/bulk': async () => ({ filter: { status: 'all', query: {} }, action: 'priority', value: 'M' }),
      // Bodies naming a ticket that is nobody's: the handler answers 404.
      'POST /api/ticket/autoassign/settings': async () => {
        const dep = await call('POST', '/api/departments', { token: bToken, body: { name: `b-dep-${uniq()}` } });
        return { department_id: dep.body.data.id, strategy: 'round_robin' };
      },
      'POST /api/ticket/message': async () => ({ ticket_id: 987654321, message: 'b message' }),
      'POST /api/ticket/message/reply': async () => ({ ticket_id: 987654321, message: 'b reply' }),
      'POST /api/language/set': async () => ({ ticketId: 987654321, lang: 'de' }),
      'POST /api/translate': async () => ({ ticketId: 987654321, text: [{ id: 0, message: 'x' }], target: 'en' }),
      'POST /api/translate2': async () => ({ ticketId: 987654321, text: [{ id: 0, message: 'x' }], target: 'en' }),
      // B's own live chat settings, saved back unchanged.
      'POST /api/livechat/settings': async () =>
        (await call('GET', '/api/livechat/settings', { token: bToken })).body.data,
      // A chat with a team mate of B's own (A's user ids are refused with 400).
      'POST /api/chat/create': async () => {
        const mate = await call('POST', '/api/users', {
          token: bToken,
          body: { username: `b-${uniq()}`, name: 'B mate', password: 'user password 1', type: 'agent' },
        });
        return { members: [mate.body.id] };
      },
      // A well-formed Web Push subscription of B's (the push service is never reached by storing it).
      'POST /api/fcm/token': async () => {
        const ecdh = crypto.createECDH('prime256v1');
        ecdh.generateKeys();
        const sub = {
          endpoint: `https://fcm.googleapis.com/fcm/send/${uniq()}`,
          keys: {
            p256dh: ecdh.getPublicKey().toString('base64url'),
            auth: crypto.randomBytes(16).toString('base64url'),
          },
        };
        return { token: JSON.stringify(sub), type: 'web', domain: 'b.example.com' };
      },
      // Sampled addresses and ports are not valid: a mailbox of B's own reaches the handler (inactive, so no
      // fetcher connects anywhere).
      'POST /api/mailboxes': async () => ({
        address: `b-${uniq()}@example.org`,
        active: false,
        imap: { host: '127.0.0.1', port: 9, tls: false, user: 'b', password: 'b password' },
        smtp: { host: '127.0.0.1', port: 9, tls: false, user: 'b' },
      }),
      // B (a trial) starts a payment of its own; the sandbox page's button for a ref that is not B's is 404.
      'POST /api/payment/create': async () => ({ plan: 2, quantity: '3' }),
      'POST /api/payment/sandbox/:ref': async () => ({ outcome: 'decline' }),
      // A well-formed number of users: B has no subscription to change (409); A's is never reached.
      'POST /api/payment/seats': async () => ({ quantity: '4' }),
      'PUT /api/mailboxes/:id': async () => ({
        address: `b-${uniq()}@example.org`,
        active: false,
        imap: { host: '127.0.0.1', port: 9, tls: false, user: 'b' },
        smtp: { host: '127.0.0.1', port: 9, tls: false, user: 'b' },
      }),
      // B's own WhatsApp number (a trial has WhatsApp); A's connections by id are 404.
      'POST /api/channels': async () => ({
        name: 'B WhatsApp',
        settings: { kind: 'whatsapp', phoneNumberId: '2222', accessToken: 'b token', appSecret: 'b secret' },
      }),
      'PUT /api/channels/:id': async () => ({
        name: 'Taken over',
        settings: { kind: 'whatsapp', phoneNumberId: '2222' },
      }),
      // B's own webhook (paused, so nothing is sent anywhere); A's by id are 404.
      'POST /api/webhooks': async () => ({
        url: 'https://hooks.b.example/in',
        events: ['ticket.created'],
        active: false,
      }),
      // B's own settings (the built-in engine); a Test of a model at a closed loopback port (allowed): failed.
      'PUT /api/ai/settings': async () => ({ provider: 'offline', translator: 'installation' }),
      'POST /api/ai/settings/test': async () => ({ base_url: 'http://127.0.0.1:1/v1', model: 'b-model', api_key: 'b' }),
      // B's own single sign-on (off), then removed by the DELETE that follows; A's is never touched.
      'PUT /api/sso/config': async () => ({
        kind: 'oidc',
        enabled: false,
        slug: `sso-b-${uniq()}`,
        oidc: { issuer: 'https://idp.b.example', clientId: 'b client', clientSecret: 'b secret' },
      }),
      'PUT /api/webhooks/:id': async () => ({
        url: 'https://hooks.b.example/taken',
        events: ['ticket.created'],
        active: false,
      }),
      // A scheduled reply on a ticket that is nobody's (404); A's by id are 404.
      'POST /api/ticket/scheduled': async () => ({
        ticket_id: 987654321,
        message: 'b later',
        send_at: Date.now() + 60_000,
      }),
      'PUT /api/ticket/scheduled/:id': async () => ({ message: 'Taken over', send_at: Date.now() + 60_000 }),
      // B has no SMS number: told so (409), nothing written.
      'POST /api/sms/send': async () => ({ to: '+14155550123', message: 'b sms' }),
      // A template to a ticket that is nobody's: 404.
      'POST /api/channels/template': async () => ({ ticketId: 987654321, template: 'order_update', language: 'en' }),
      // A private reply to a ticket that is nobody's: 404.
      'POST /api/channels/private-reply': async () => ({ ticketId: 987654321, message: 'b private' }),
      // B's own contacts: one made by hand, an import of two rows, a merge of two of B's.
      'POST /api/contacts': async () => ({
        name: 'B contact',
        identifiers: [{ kind: 'email', value: `b-${uniq()}@b.example` }],
      }),
      'POST /api/contacts/import': async () => ({ csv: `name,email\nB one,b1-${uniq()}@b.example\nB two,\n` }),
      'PUT /api/contacts/:id': async () => ({ name: 'Taken over' }),
      // B's own case; A's cases by id are 404 (A's owner or contact named in it is refused with 400).
      'POST /api/cases': async () => ({ title: 'B case' }),
      'PUT /api/cases/:id': async () => ({ title: 'Taken over' }),
      // Time on A's ticket, and A's entries changed: 404, nothing written.
      'POST /api/timer/entries': async () => ({ ticket_id: Number(aTicket.id), minutes: 5, date: '2026-03-02' }),
      'PUT /api/timer/entries/:id': async () => ({ minutes: 5, date: '2026-03-02', note: 'Taken over' }),
      // B's own event; A's events by id are 404 (A's contact named in it is refused with 400).
      'POST /api/calendar/events': async () => ({ title: 'B event', starts_at: Date.now(), ends_at: Date.now() }),
      'PUT /api/calendar/events/:id': async () => ({ title: 'Taken over', starts_at: Date.now(), ends_at: Date.now() }),
      // B's own instrument; A's instruments by id are 404.
      'POST /api/trading/instruments': async () => ({ symbol: `B${uniq()}`, name: 'B instrument' }),
      'PUT /api/trading/instruments/:id': async () => ({ symbol: `B${uniq()}`, name: 'Taken over' }),
      // B's own form; A's forms by id are 404.
      'POST /api/forms/settings': async () => ({
        name: 'B form',
        fields: [{ key: 'email', label: 'E-mail', type: 'email' }],
      }),
      'PUT /api/forms/settings/:id': async () => ({
        name: 'Taken over',
        fields: [{ key: 'email', label: 'E-mail', type: 'email' }],
      }),
      'POST /api/contacts/:id/identifiers': async () => ({ kind: 'email', value: `b-${uniq()}@b.example` }),
      'POST /api/contacts/:id/merge': async () => ({ from: keptContact }),
      // A knowledge-base article of B's own (a sampled category id is A's: refused with 404).
      'POST /api/kb/articles': async () => ({ type: 'kb', lang: 'en', title: 'b article' }),
      // B removes its own picture; A's uploads as B's picture are refused in profilePhoto.test.ts.
      'PUT /api/user/photo': async () => ({ file: null }),
      // A good rule of B's own (sampled label, status or department ids are A's: refused with 400).
      'POST /api/automation/rules': async () => bRule,
      // B's own message, A's article as the source of a "what to say" verdict: not found, nothing written.
      'POST /api/wauchat/feedback': async () => ({
        messageId: Number(bMessage.id),
        kind: 'what_to_say',
        verdict: 'dismissed',
        source: { kind: 'article', id: Number(kbArticle.id) },
      }),
      'PUT /api/automation/rules/:id': async () => bRule,
      'POST /api/automation/dry-run': async () => bRule,
      // A good retention rule of B's own (A's rules by id are 404); B's preview of it writes nothing.
      'POST /api/retention/rules': async () => ({ target: 'closed_tickets', action: 'delete', days: 30, channel: '' }),
      'PUT /api/retention/rules/:id': async () => ({ target: 'audit_log', action: 'delete', days: 365, channel: '' }),
      'POST /api/retention/preview': async () => ({
        target: 'closed_tickets',
        action: 'anonymise',
        days: 1,
        channel: '',
      }),
      // Erasing A's contact by its id, typed as the confirmation: 404, nothing of A's touched.
      'POST /api/contacts/:id/erase': async () => ({ confirm: String(keptContact) }),
      // B's own rules in a new order (A's ids among them are refused).
      'PUT /api/automation/rules/order': async () => ({
        ids: (
          await db()
            .selectFrom('automation_rules')
            .select('id')
            .where('account_id', '=', b.accountId)
            .orderBy('id', 'desc')
            .execute()
        ).map((r) => Number(r.id)),
      }),
    };
    const today = new Date().toISOString().slice(0, 10);
    /** GET routes that search: B asks for A's words, which must find nothing of A's. */
    const searches: Record<string, string[]> = {
      '/api/search/data': [
        `?entity=${encodeURIComponent(ticketTitle)}`,
        `?entity=${encodeURIComponent(messageText)}`,
        `?message=${encodeURIComponent(messageText)}`,
        `?contact=${encodeURIComponent(`customer-a-${sfx}`)}`,
        `?label=${encodeURIComponent(label)}`,
        `?username=${encodeURIComponent(agent.username)}`,
        `?entity=${encodeURIComponent(agent.username)}`,
        '?ticket=1',
      ],
      '/api/cases': [`?stage=all&q=case-a-${sfx}`],
      // B's team's time over the last 300 days, and A's agent named: none of A's entries.
      '/api/timer/entries': [
        `?from=${new Date(Date.now() - 300 * 86_400_000).toISOString().slice(0, 10)}&to=${new Date().toISOString().slice(0, 10)}&user_id=${agent.id}`,
      ],
      '/api/calendar': [`?from=${new Date().toISOString().slice(0, 10)}&to=${new Date().toISOString().slice(0, 10)}`],
      // A's instrument asked for by B over every day of a year: 404, none of A's mentions.
      '/api/trading/analyst': [
        `?instrument=${aInstrumentId}`,
        `?instrument=${aInstrumentId}&from=2026-01-01&to=2026-12-31`,
      ],
      '/api/trading/insight': ['?from=2026-01-01&to=2026-12-31'],
      '/api/contacts/list': [`?keyword=customer-a-${sfx}`, `?searchBar=contact-a-${sfx}`, '?filter=email'],
      '/api/kb/search': [`?q=${kbWord}`, `?q=${encodeURIComponent('kb body')}`],
      '/api/kb/articles': [`?q=${kbWord}`, '?status=published'],
      '/api/kb/categories': ['?type=kb&lang=en'],
      // B's own message asked about with A's words: B's classification and what to say know nothing of A's.
      '/api/wauchat/ticket_recommendation': [kbWord, `${kbWord} title kb body`, messageText].map(
        (text) => `?text=${encodeURIComponent(text)}&messageId=${bMessage.id}&channel=EMAIL`,
      ),
      // B's report over every day up to today: none of A's tickets.
      '/report/generate': ['all', 'ticket', 'livechat'].map(
        (type) => `?type=${type}&status=all&startDate=2000-01-01&endDate=${new Date().toISOString().slice(0, 10)}`,
      ),
      // B's omnichannel report parts over every day up to today (the interval one over today by the hour).
      '/api/report/interval': [`?startDate=${today}&endDate=${today}&interval=60`],
      '/api/report/aux': [`?startDate=2000-01-01&endDate=${today}`],
      '/api/report/csat': [`?startDate=2000-01-01&endDate=${today}`],
      '/api/report/performance': [`?startDate=2000-01-01&endDate=${today}`],
      // B's call report over every day up to today: none of A's calls, agents or DIDs.
      '/api/report/call': [`?startDate=2000-01-01&endDate=${today}`],
    };
    /** Routes that cannot answer anything but 400 to a JSON walk, each with the reason. */
    const ONLY_BAD_REQUEST: Record<string, string> = {
      'POST /api/upload': 'takes multipart/form-data only; uploads are walked in messages.test.ts',
      'POST /api/upload/voice': 'takes multipart/form-data only, reads no row; walked in ai/emotionLive.test.ts',
    };

    const routes = s.app.routeTable.filter((r) => r.auth !== 'public');
    const answered = new Map<string, number[]>();
    // Keys that name a row; `event_id` and `seq` count per account, so B has its own small numbers there.
    const aIdKeys = /^(id|session|.*Id|.*_id)$/;
    const perAccount = new Set(['event_id', 'seq', 'head']);
    const leakedIds = (v: unknown, path = ''): string[] => {
      if (Array.isArray(v)) return v.flatMap((x, i) => leakedIds(x, `${path}[${i}]`));
      if (v && typeof v === 'object')
        return Object.entries(v).flatMap(([k, x]) =>
          typeof x === 'number' && aIdKeys.test(k) && !perAccount.has(k) && aIds.has(x)
            ? [`${path}.${k}=${x}`]
            : leakedIds(x, `${path}.${k}`),
        );
      return [];
    };
    let calls = 0;
    for (const r of routes) {
      const key = `${r.method} ${r.url}`;
      // HEAD routes are the GET routes' twins: same query parameters.
      const op = operation(r.method === 'HEAD' ? 'GET' : r.method, r.url);
      const urls = PATHS[r.url]
        ? candidates.map(PATHS[r.url]!)
        : r.url.includes(':')
          ? candidates.map((id) => r.url.replace(/:\w+/g, String(id)))
          : [r.url];
      const queryParams = (op?.parameters ?? []).filter((p) => p.in === 'query');
      const queries = [''];
      if (queryParams.length > 0) {
        for (const id of candidates)
          queries.push(
            `?${queryParams.map((p) => `${p.name}=${encodeURIComponent(String(sample(p.schema, id)))}`).join('&')}`,
          );
      }
      queries.push(`?_token=${a.token}`);
      for (const q of searches[r.url] ?? []) queries.push(q);
      const bodySchema = op?.requestBody?.content?.['application/json']?.schema;
      const hasBody = ['POST', 'PUT', 'PATCH'].includes(r.method);
      const bodies: (() => Promise<unknown>)[] = hasBody ? [async () => ({})] : [async () => undefined];
      if (hasBody && known[key]) bodies.push(known[key]);
      if (hasBody && bodySchema) {
        const numeric = JSON.stringify(bodySchema).match(/"(integer|number)"/);
        for (const id of numeric ? candidates : [candidates[0]!]) bodies.push(async () => sample(bodySchema, id));
      }

      for (const url of urls)
        for (const query of r.method === 'GET' || r.method === 'HEAD' ? queries : [''])
          for (const makeBody of bodies) {
            const body = await makeBody();
            let res: Answer = await call(r.method, `${url}${query}`, { token: bToken, body });
            if (res.status === 401) {
              // B signed itself out or ended its own sessions on the way: sign in again and retry.
              await signInB();
              res = await call(r.method, `${url}${query}`, { token: bToken, body });
            }
            calls++;
            const what = `${r.method} ${url}${query} ${JSON.stringify(body)?.slice(0, 200)} -> ${res.status} ${res.text.slice(0, 300)}`;
            expect(res.status, what).toBeLessThan(500);
            // The engine's reading of B's own words quotes them back as its cues: what is checked there is
            // what the account's data answered (classification, what to say).
            const seen =
              r.url === '/api/wauchat/ticket_recommendation' && res.status === 200
                ? JSON.stringify({ ...res.body, results: null, scam: null })
                : res.text;
            for (const m of markers) expect(seen.includes(m), `${what} shows A's ${m}`).toBe(false);
            expect(leakedIds(res.body), what).toEqual([]);
            answered.set(key, [...(answered.get(key) ?? []), res.status]);
            if (r.url === '/api/user/2fa/setup' && res.status === 200) pendingSecret = res.body.secret;
            if (r.url === '/api/user/2fa/enable' && res.status === 200) bSecret = pendingSecret;
            if (r.url === '/api/user/2fa/disable' && res.status === 200) bSecret = null;
            // B's admin has no two-factor sign-in: requiring it would shut B out of every later route.
            if (r.url === '/api/account/security' && res.status === 200)
              await db().updateTable('accounts').set({ require_2fa: 0 }).where('id', '=', b.accountId).execute();
          }
    }

    // The walk really reached every handler: each route answered something other than "bad request".
    const onlyRefused = [...answered]
      .filter(
        ([key, statuses]) => !(key in ONLY_BAD_REQUEST) && !statuses.some((x) => x < 400 || x === 404 || x === 409),
      )
      .map(([key, statuses]) => `${key} answered only ${[...new Set(statuses)]}`);
    expect(onlyRefused).toEqual([]);
    expect(calls).toBeGreaterThan(routes.length);

    // Graph's public notification route: B, naming A's subscription without its clientState, feeds nothing.
    for (const clientState of [undefined, '', `client-state-b-${sfx}`, graphClientState.slice(0, -1)]) {
      const res = await call('POST', '/api/email/graph/notify', {
        body: {
          value: [{ subscriptionId: graphSubscription, clientState, changeType: 'created', resourceData: { id: 'x' } }],
        },
      });
      expect(res.status, res.text).toBe(202);
    }

    expect(await snapshot()).toEqual(before);
    // A's people are untouched: their sessions still work and they can still sign in.
    for (const token of [a.token, agent.token, extra.body.token])
      expect((await call('POST', '/api/auth/check', { token })).body.result).toBe('success');
    expect((await signInVia(call, a.username, a.password)).status).toBe(200);
  }
});

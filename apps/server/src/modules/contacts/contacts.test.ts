import { randomBytes } from 'node:crypto';
import { CONTACT_STRINGS, type ContactDetail, csvField, parseCsv } from '@parley/contracts';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversationRules } from '../../app.js';
import { addUserVia, apiClient, type Call, type SignedUp, signUpVia, uniq } from '../../testing/api.js';
import { rawMail } from '../../testing/dovecot.js';
import { liveChatAccount, queueVisitor } from '../../testing/livechat.js';
import { connectSocket, type TestSocket } from '../../testing/sockets.js';
import { dialects, startTestServer } from '../../testing/support.js';
import { storeMail } from '../email/commands/storeMail.js';
import { parseMail } from '../email/parseMail.js';
import { canonicalIdentifier } from './identifiers.js';

describe('contact addresses', () => {
  it('CONTACT e-mail in lower case, phones in E.164 with their country code, chat ids checked', () => {
    expect(canonicalIdentifier('email', ' Pat.Lee@Example.ORG ')).toEqual({ ok: true, value: 'pat.lee@example.org' });
    expect(canonicalIdentifier('email', 'not an address').ok).toBe(false);
    expect(canonicalIdentifier('phone', '+60 12-345 6789')).toEqual({ ok: true, value: '+60123456789' });
    expect(canonicalIdentifier('phone', '0060 12 345 6789')).toEqual({ ok: true, value: '+60123456789' });
    expect(canonicalIdentifier('phone', '+44 (0)20 7946 0958')).toEqual({ ok: true, value: '+442079460958' });
    // Without a country code a number cannot be told apart from another country's.
    expect(canonicalIdentifier('phone', '012 345 6789')).toEqual({ ok: false, reason: CONTACT_STRINGS.badPhone });
    expect(canonicalIdentifier('phone', 'call me maybe').ok).toBe(false);
    expect(canonicalIdentifier('x', '@Parley_HQ')).toEqual({ ok: true, value: 'parley_hq' });
    expect(canonicalIdentifier('telegram', 'has space').ok).toBe(false);
  });

  it('CONTACT CSV reads quotes, doubled quotes, line breaks in a field; the export guards formulas', () => {
    expect(parseCsv('\uFEFFname,email\r\n"Lee, Pat","a""b"\n"two\nlines",x')).toEqual([
      ['name', 'email'],
      ['Lee, Pat', 'a"b'],
      ['two\nlines', 'x'],
    ]);
    expect(csvField('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvField('+60123456789')).toBe("'+60123456789");
    expect(csvField('plain')).toBe('plain');
  });
});

describe.each(dialects)('contacts (%s)', (dialect) => {
  let s: Awaited<ReturnType<typeof startTestServer>>;
  let call: Call;
  const opened: { close(): void }[] = [];
  const db = () => s.handle.db;

  beforeAll(async () => {
    s = await startTestServer(dialect, { SECRETS_KEY: randomBytes(32).toString('base64') });
    call = apiClient(s.url);
  });
  afterAll(async () => {
    for (const o of opened) o.close();
    await s?.stop();
  });

  const detail = async (token: string, id: number): Promise<ContactDetail> => {
    const r = await call('GET', `/api/contacts/${id}`, { token });
    expect(r.status, r.text).toBe(200);
    return r.body.contact;
  };
  const list = async (token: string, query = '') => {
    const r = await call('GET', `/api/contacts/list${query}`, { token });
    expect(r.status, r.text).toBe(200);
    return r.body;
  };
  const contactOfTicket = async (ticketId: number) =>
    (await db().selectFrom('tickets').select('contact_id').where('id', '=', ticketId).executeTakeFirstOrThrow())
      .contact_id;

  /** A mail from `from` to a new mailbox of the account, stored as the fetcher stores it; its ticket. */
  async function mailFrom(admin: SignedUp, from: string, subject = 'Order') {
    const address = `help-${uniq()}@acme.test`;
    const box = await call('POST', '/api/mailboxes', {
      token: admin.token,
      body: {
        address,
        active: false,
        imap: { host: '127.0.0.1', port: 9, tls: false, user: 'help', password: 'secret' },
        smtp: { host: '127.0.0.1', port: 9, tls: false, user: 'help' },
      },
    });
    expect(box.status, box.text).toBe(200);
    const messageId = `m-${uniq()}@customer.example`;
    await storeMail(
      { db: db(), conversations: conversationRules(), dataDir: s.config.DATA_DIR },
      { id: box.body.data.id, accountId: admin.accountId, address, departmentId: null },
      null,
      await parseMail(Buffer.from(rawMail({ from, to: address, subject, messageId }))),
    );
    const t = await db()
      .selectFrom('email_message_ids')
      .select('ticket_id')
      .where('account_id', '=', admin.accountId)
      .where('message_id', '=', messageId)
      .executeTakeFirstOrThrow();
    return Number(t.ticket_id);
  }

  it('CONTACT-10 SEARCH-10 PROFILE-01 a customer writes by e-mail, then by live chat with the same e-mail: one contact, both conversations', async () => {
    const { admin, agents, token } = await liveChatAccount(call, db(), 1);
    const who = `pat${uniq()}`;
    const mailTicket = await mailFrom(admin, `"Pat Lee" <${who}@Example.com>`);
    const contactId = await contactOfTicket(mailTicket);
    expect(contactId).not.toBeNull();
    const first = await detail(admin.token, Number(contactId));
    expect(first).toMatchObject({ name: 'Pat Lee', uid: `${who}@example.com`, conversations: 1, merged_into: null });
    // The mail came from the address: it is verified.
    expect(first.identifiers).toMatchObject([{ kind: 'email', value: `${who}@example.com`, verified: true }]);

    // The live chat form gives the same address (the helper's form writes `<name>@example.com`).
    await queueVisitor(call, s.url, token, who, opened);
    const agent = await connectSocket(s.url, agents[0]!.token, opened as TestSocket[]);
    const taken = await agent.emitWithAck('acceptLiveChat', null);
    expect(taken.ok).toBe(true);
    const chatTicket = taken.ok ? taken.ticket_id : 0;
    expect(await contactOfTicket(chatTicket)).toBe(contactId);

    const page = await detail(admin.token, Number(contactId));
    expect(page.conversations_list.map((c) => [c.id, c.channel])).toEqual([
      [chatTicket, 'LIVECHAT'],
      [mailTicket, 'EMAIL'],
    ]);
    expect(page).toMatchObject({ conversations: 2, open: 2, name: 'Pat Lee' });
    // The chat's phone ('0123', no country code) is not an address; the e-mail stays one and verified.
    expect(page.identifiers).toHaveLength(1);
    expect(page.identifiers[0]!.verified).toBe(true);
    const listed = await list(admin.token, `?keyword=${who}`);
    expect(listed.total).toBe(1);
    expect(listed.contacts[0]).toMatchObject({ id: contactId, conversations: 2 });
    // The profile modal of the ticket's customer names the contact, to open its page.
    const profile = await call('GET', `/api/user/profile/0?mode=quick&id=${mailTicket}`, { token: admin.token });
    expect(profile.status, profile.text).toBe(200);
    expect(profile.body.data.contact_id).toBe(contactId);
    // Both conversations are open: the contact is under the open filter, the keyword's contacts without any are not.
    expect((await list(admin.token, `?keyword=${who}&filter=open`)).total).toBe(1);
    expect((await list(admin.token, '?keyword=nobody-here&filter=open')).total).toBe(0);
    // Another account never sees it.
    const other = await signUpVia(call);
    expect((await list(other.token, `?keyword=${who}`)).total).toBe(0);
    expect((await call('GET', `/api/contacts/${contactId}`, { token: other.token })).status).toBe(404);
  });

  it('CONTACT list keyword: a prefix of any word of the name or of an address, as typed; merged contacts and other accounts left out', async () => {
    const admin = await signUpVia(call);
    const tag = `zx${uniq()
      .replace(/[^a-z0-9]/gi, '')
      .toLowerCase()}`;
    const make = async (name: string, identifiers: { kind: string; value: string }[] = []) => {
      const r = await call('POST', '/api/contacts', { token: admin.token, body: { name, identifiers } });
      expect(r.status, r.text).toBe(200);
      return r.body.id as number;
    };
    const three = await make(`Mary ${tag}ann Lee-Smith`, [{ kind: 'email', value: `m.${tag}@example.com` }]);
    const accent = await make(`José ${tag}ñu`);
    const odd = await make(`O'Brien (${tag}) 100%`);
    const under = await make(`Kim ${tag}_x`);
    const gone = await make(`Gone ${tag}ann`);
    const kept = await make(`Kept ${tag}`);
    expect(
      (await call('POST', `/api/contacts/${kept}/merge`, { token: admin.token, body: { from: gone } })).status,
    ).toBe(200);
    const ids = async (keyword: string) =>
      (await list(admin.token, `?keyword=${encodeURIComponent(keyword)}&pagination=50`)).contacts
        .map((c: { id: number }) => c.id)
        .sort((a: number, b: number) => a - b);
    // A word that is not the first, its prefix, the whole name's prefix, a later word, any case.
    expect(await ids(`${tag}ann`)).toEqual([three]);
    expect(await ids(`${tag}AN`)).toEqual([three]);
    expect(await ids(`mary ${tag}a`)).toEqual([three]);
    expect(await ids('lee-smi')).toContain(three);
    // Not the middle of a word: "smith" follows a hyphen, not a space.
    expect(await ids(`${tag}ann lee-smith`)).toEqual([three]);
    expect(await ids('ee-smith')).not.toContain(three);
    // An address prefix; an accent is kept as typed (no folding); punctuation and LIKE's own characters.
    expect(await ids(`m.${tag}@exa`)).toEqual([three]);
    expect(await ids(`${tag}ñ`)).toEqual([accent]);
    expect(await ids(`${tag}n`)).toEqual([]);
    expect(await ids(`(${tag})`)).toEqual([odd]);
    expect(await ids('100%')).toContain(odd);
    expect(await ids(`${tag}_`)).toEqual([under]);
    expect(await ids(`${tag}%`)).toEqual([]);
    // The merged contact is left out; the one it went to stays, and the total counts the same rows.
    expect(await ids(`kept ${tag}`)).toEqual([kept]);
    expect(await ids(`gone ${tag}`)).toEqual([]);
    // "(tag)" starts with a parenthesis, so the bare tag finds the other four.
    expect((await list(admin.token, `?keyword=${tag}`)).total).toBe(4);
    // Without a keyword the total is the account's counter (migration 0036): six made, one merged away.
    expect((await list(admin.token)).total).toBe(5);
    const other = await signUpVia(call);
    expect((await list(other.token, `?keyword=${tag}`)).total).toBe(0);
  });

  it('CONTACT deep pages of the whole list are reached by day (contact_days) with the same rows as OFFSET', async () => {
    const admin = await signUpVia(call);
    const DAY = 86_400_000;
    const start = Date.UTC(2026, 0, 1, 0, 0, 0);
    // 2,400 contacts over 30 days, many sharing a day and some the same instant, inserted out of day order.
    const rows = Array.from({ length: 2_400 }, (_, i) => {
      const day = (i * 7) % 30;
      const at = start + day * DAY + (i % 3 === 0 ? 0 : (i * 7919) % DAY);
      return {
        account_id: admin.accountId,
        name: `Deep ${i}`,
        name_lower: `deep ${i}`,
        last_seen_at: at,
        created_at: at,
        updated_at: at,
      };
    });
    for (let k = 0; k < rows.length; k += 400)
      await db()
        .insertInto('contacts')
        .values(rows.slice(k, k + 400))
        .execute();
    const ids = (
      await db().selectFrom('contacts').select('id').where('account_id', '=', admin.accountId).orderBy('id').execute()
    ).map((r) => Number(r.id));
    // Writes the triggers must follow: merged away and back, moved to another day (and within one), deleted.
    const pick = (from: number, step: number) => ids.filter((_, k) => k % step === from);
    await db().updateTable('contacts').set({ merged_into: ids[0]! }).where('id', 'in', pick(5, 37)).execute();
    await db().updateTable('contacts').set({ merged_into: null }).where('id', 'in', pick(5, 74)).execute();
    await db()
      .updateTable('contacts')
      .set((eb) => ({ last_seen_at: eb('last_seen_at', '+', 3 * DAY + 1) }))
      .where('id', 'in', pick(3, 11))
      .execute();
    await db()
      .updateTable('contacts')
      .set((eb) => ({ last_seen_at: eb('last_seen_at', '+', 1) }))
      .where('id', 'in', pick(4, 13))
      .execute();
    await db().deleteFrom('contacts').where('id', 'in', pick(2, 29)).execute();
    // A contact whose last contact was 40 years before 1970 takes the plain OFFSET path.
    await db()
      .updateTable('contacts')
      .set({ last_seen_at: -40 * 365 * DAY })
      .where('id', '=', ids[1]!)
      .execute();

    const recount = await db()
      .selectFrom('contacts')
      .select(['last_seen_at'])
      .where('account_id', '=', admin.accountId)
      .where('merged_into', 'is', null)
      .execute();
    const byDay = new Map<number, number>();
    for (const r of recount) {
      const d = Math.trunc(Number(r.last_seen_at) / DAY);
      byDay.set(d, (byDay.get(d) ?? 0) + 1);
    }
    const kept = (
      await sql<{
        day: number;
        n: number;
      }>`select day, n from contact_days where account_id = ${admin.accountId}`.execute(db())
    ).rows.map((r) => [Number(r.day), Number(r.n)] as const);
    expect(new Map(kept.filter(([, n]) => n !== 0))).toEqual(byDay);

    // Every page equals the plain OFFSET over the list order (last contact first, then the newest id).
    const order = (
      await db()
        .selectFrom('contacts')
        .select('id')
        .where('account_id', '=', admin.accountId)
        .where('merged_into', 'is', null)
        .orderBy('last_seen_at', 'desc')
        .orderBy('id', 'desc')
        .execute()
    ).map((r) => Number(r.id));
    expect(order.length).toBe(recount.length);
    for (let page = 1; page <= Math.ceil(order.length / 50) + 1; page++) {
      const got = await list(admin.token, `?pagination=50&page=${page}`);
      expect(got.total).toBe(order.length);
      expect(
        got.contacts.map((c: { id: number }) => c.id),
        `page ${page}`,
      ).toEqual(order.slice((page - 1) * 50, page * 50));
    }
    // Far past the end: an empty page, at once.
    expect((await list(admin.token, '?pagination=50&page=1000000')).contacts).toEqual([]);
  });

  it('CONTACT the open filter: counters kept by triggers follow tickets made, closed, reopened, moved and deleted', async () => {
    const admin = await signUpVia(call);
    const acc = admin.accountId;
    const make = async (name: string) => {
      const r = await call('POST', '/api/contacts', { token: admin.token, body: { name } });
      expect(r.status, r.text).toBe(200);
      return r.body.id as number;
    };
    const [ann, bob, cat, dan] = [
      await make('Open Ann'),
      await make('Open Bob'),
      await make('Open Cat'),
      await make('Open Dan'),
    ];
    let number = 0;
    const ticket = async (contactId: number | null, closed: number) => {
      number++;
      const r = await sql<{
        id: number;
      }>`insert into tickets (account_id, ticket_number, title, channel, closed, priority,
          label, department_id, assignee, name, email, phone, created_at, updated_at, contact_id)
        values (${acc}, ${900_000 + number}, 'Open test', 'EMAIL', ${closed}, '', '[]', null, '', 'C', '', '', 1, 1,
          ${contactId}) returning id`.execute(db());
      return Number(r.rows[0]!.id);
    };
    const setTicket = (id: number, set: { closed?: number; contact_id?: number | null }) =>
      db().updateTable('tickets').set(set).where('id', '=', id).execute();
    /** The counters against a count of the tickets themselves, and the filter's answer against that count. */
    const check = async () => {
      const truth = await db()
        .selectFrom('contacts as c')
        .select((eb) => [
          'c.id',
          'c.open_tickets',
          eb
            .selectFrom('tickets as t')
            .select((e) => e.fn.countAll<number>().as('n'))
            .whereRef('t.contact_id', '=', 'c.id')
            .where('t.closed', 'not in', [2, 3])
            .as('real'),
        ])
        .where('c.account_id', '=', acc)
        .execute();
      for (const t of truth) expect(Number(t.open_tickets), `contact ${t.id}`).toBe(Number(t.real));
      const visibleOpen = await db()
        .selectFrom('contacts')
        .select('id')
        .where('account_id', '=', acc)
        .where('merged_into', 'is', null)
        .where('open_tickets', '>', 0)
        .orderBy('last_seen_at', 'desc')
        .orderBy('id', 'desc')
        .execute();
      const listed = await list(admin.token, '?filter=open&pagination=50');
      expect(listed.total).toBe(visibleOpen.length);
      expect(listed.contacts.map((c: { id: number }) => c.id)).toEqual(visibleOpen.map((r) => Number(r.id)));
      return listed.contacts.map((c: { id: number }) => c.id).sort((a: number, b: number) => a - b);
    };
    expect(await check()).toEqual([]);
    const a1 = await ticket(ann, 0);
    const a2 = await ticket(ann, 1);
    const b1 = await ticket(bob, 3);
    await ticket(null, 0);
    expect(await check()).toEqual([ann]);
    // Closing one of two open tickets keeps Ann; closing the other drops her; reopening brings her back.
    await setTicket(a1, { closed: 2 });
    expect(await check()).toEqual([ann]);
    await setTicket(a2, { closed: 3 });
    expect(await check()).toEqual([]);
    await setTicket(b1, { closed: 0 });
    await setTicket(a1, { closed: 0 });
    expect(await check()).toEqual([ann, bob].sort((x, y) => x - y));
    // Moved to another contact, then unlinked; deleted.
    await setTicket(a1, { contact_id: cat });
    expect(await check()).toEqual([bob, cat].sort((x, y) => x - y));
    await setTicket(a1, { contact_id: null, closed: 1 });
    const d1 = await ticket(dan, 0);
    await db().deleteFrom('tickets').where('id', '=', b1).execute();
    expect(await check()).toEqual([dan]);
    // A merge moves Dan's open ticket to Cat and hides Dan; its undo puts both back.
    const merged = await call('POST', `/api/contacts/${cat}/merge`, { token: admin.token, body: { from: dan } });
    expect(merged.status, merged.text).toBe(200);
    expect(await check()).toEqual([cat]);
    const undo = await call('POST', `/api/contacts/merges/${merged.body.merge_id}/undo`, { token: admin.token });
    expect(undo.status, undo.text).toBe(200);
    expect(await check()).toEqual([dan]);
    // A merge of a contact with open tickets into one without: still one open contact, the kept one.
    await setTicket(d1, { closed: 0 });
    expect((await call('POST', `/api/contacts/${ann}/merge`, { token: admin.token, body: { from: dan } })).status).toBe(
      200,
    );
    expect(await check()).toEqual([ann]);
    // A keyword with the filter still answers from the tickets' counters on the contacts.
    expect((await list(admin.token, '?filter=open&keyword=open')).total).toBe(1);
  });

  it('CONTACT merge two contacts, then undo: both are back exactly as before', async () => {
    const admin = await signUpVia(call);
    const ann = `ann${uniq()}`;
    const annMail = await mailFrom(admin, `Ann Ng <${ann}@example.org>`);
    const annId = Number(await contactOfTicket(annMail));
    const made = await call('POST', '/api/contacts', {
      token: admin.token,
      body: {
        name: 'Ann N.',
        salutation: 'Ms',
        identifiers: [
          { kind: 'email', value: `${ann}.home@example.org` },
          { kind: 'phone', value: '+60 12 345 6789' },
        ],
        id_type: 'Passport No.',
        id_number: 'A1234567',
      },
    });
    expect(made.status, made.text).toBe(200);
    const dupId = made.body.id as number;
    const dupMail = await mailFrom(admin, `${ann}.home@example.org`, 'Second');
    expect(await contactOfTicket(dupMail)).toBe(dupId);
    const before = { ann: await detail(admin.token, annId), dup: await detail(admin.token, dupId) };
    const totalBefore = (await list(admin.token)).total;

    const merged = await call('POST', `/api/contacts/${annId}/merge`, { token: admin.token, body: { from: dupId } });
    expect(merged.status, merged.text).toBe(200);
    const kept = await detail(admin.token, annId);
    expect(kept.name).toBe('Ann Ng');
    expect(kept.identifiers.map((i) => i.value).sort()).toEqual(
      [`${ann}.home@example.org`, `${ann}@example.org`, '+60123456789'].sort(),
    );
    expect(kept.conversations_list.map((c) => c.id).sort()).toEqual([annMail, dupMail].sort());
    expect(kept.merges).toMatchObject([
      { id: merged.body.merge_id, merged_id: dupId, identifiers: 2, conversations: 1 },
    ]);
    expect((await detail(admin.token, dupId)).merged_into).toBe(annId);
    expect((await list(admin.token)).total).toBe(totalBefore - 1);
    // A new mail from the merged address now goes to the kept contact.
    const third = await mailFrom(admin, `${ann}.home@example.org`, 'Third');
    expect(await contactOfTicket(third)).toBe(annId);
    await db().deleteFrom('tickets').where('id', '=', third).execute();
    // The merged contact cannot be merged again or edited; a merge into itself is refused.
    const again = await call('POST', `/api/contacts/${annId}/merge`, { token: admin.token, body: { from: dupId } });
    expect([again.status, again.body.description]).toEqual([409, CONTACT_STRINGS.mergeGone]);
    const self = await call('POST', `/api/contacts/${annId}/merge`, { token: admin.token, body: { from: annId } });
    expect([self.status, self.body.description]).toEqual([400, CONTACT_STRINGS.mergeSelf]);

    const undo = await call('POST', `/api/contacts/merges/${merged.body.merge_id}/undo`, { token: admin.token });
    expect(undo.status, undo.text).toBe(200);
    expect(await detail(admin.token, annId)).toEqual(before.ann);
    expect(await detail(admin.token, dupId)).toEqual(before.dup);
    expect((await list(admin.token)).total).toBe(totalBefore);
    const twice = await call('POST', `/api/contacts/merges/${merged.body.merge_id}/undo`, { token: admin.token });
    expect([twice.status, twice.body.description]).toEqual([409, CONTACT_STRINGS.undone]);
    const audit = await db()
      .selectFrom('audit_log')
      .select('action')
      .where('account_id', '=', admin.accountId)
      .where('action', 'like', 'contact.%')
      .orderBy('id')
      .execute();
    expect(audit.map((a) => a.action)).toEqual(['contact.merged', 'contact.merge_undone']);
  });

  it('CONTACT SEARCH-10 bad input: unreadable phone, bad e-mail, an address of another contact, unknown ids; nothing changes', async () => {
    const admin = await signUpVia(call);
    const one = await call('POST', '/api/contacts', {
      token: admin.token,
      body: { name: 'Owner', identifiers: [{ kind: 'email', value: `own-${uniq()}@example.org` }] },
    });
    expect(one.status, one.text).toBe(200);
    const owned = (await detail(admin.token, one.body.id)).identifiers[0]!.value;
    const count = async () =>
      (await db().selectFrom('contacts').select('id').where('account_id', '=', admin.accountId).execute()).length;
    const n = await count();
    const cases: [unknown, number, string | RegExp][] = [
      [{ name: 'P', identifiers: [{ kind: 'phone', value: '012 345' }] }, 400, /cannot be read/],
      [{ name: 'P', identifiers: [{ kind: 'email', value: 'nope' }] }, 400, /not an e-mail address/],
      [
        { name: 'P', identifiers: [{ kind: 'email', value: owned.toUpperCase() }] },
        409,
        CONTACT_STRINGS.identifierTaken('Owner'),
      ],
      [{ name: '' }, 400, CONTACT_STRINGS.nameRequired],
      [{ name: 'x'.repeat(201) }, 400, /too long/],
      [{ name: 'P', id_type: 'MyKad ID' }, 400, CONTACT_STRINGS.idNumberRequired],
      [{ name: 'P', id_type: 'Library card' }, 400, /id_type/],
      [{ name: 'P', identifiers: [{ kind: 'fax', value: '1' }] }, 400, /kind/],
    ];
    for (const [body, status, text] of cases) {
      const r = await call('POST', '/api/contacts', { token: admin.token, body });
      expect(r.status, r.text).toBe(status);
      if (typeof text === 'string') expect(r.body.description).toBe(text);
      else expect(r.text).toMatch(text);
    }
    expect(await count()).toBe(n);
    // A refused number on an id of "Refuses to provide" is kept as that words.
    const refused = await call('POST', '/api/contacts', {
      token: admin.token,
      body: { name: 'Quiet', id_type: 'MyKad ID', refused: true },
    });
    expect((await detail(admin.token, refused.body.id)).id_number).toBe('Refuses to provide');
    for (const [method, path, body] of [
      ['GET', '/api/contacts/987654321', undefined],
      ['PUT', '/api/contacts/987654321', { name: 'x' }],
      ['POST', '/api/contacts/987654321/identifiers', { kind: 'email', value: 'a@b.example' }],
      ['DELETE', `/api/contacts/${one.body.id}/identifiers/987654321`, undefined],
      ['POST', '/api/contacts/merges/987654321/undo', undefined],
    ] as const) {
      const r = await call(method, path, { token: admin.token, body });
      expect(r.status, `${method} ${path} ${r.text}`).toBe(404);
    }
    for (const q of ['?pagination=7', '?page=0', '?filter=vip', `?keyword=${'k'.repeat(201)}`, '?page=abc']) {
      const r = await call('GET', `/api/contacts/list${q}`, { token: admin.token });
      expect(r.status, `${q} ${r.text}`).toBe(400);
    }
    for (const id of ['abc', '0', '-1', '1e400'])
      expect((await call('GET', `/api/contacts/${id}`, { token: admin.token })).status).toBe(400);
  });

  it('CONTACT hidden from an agent with hide_contacts, on the API too; admins keep them', async () => {
    const admin = await signUpVia(call);
    const agent = await addUserVia(call, admin.token, { username: `ag-${uniq()}`, type: 'agent' });
    expect((await call('GET', '/api/contacts/list', { token: agent.token })).status).toBe(200);
    await db()
      .updateTable('users')
      .set({ permission: JSON.stringify(['hide_contacts']) })
      .where('id', '=', agent.id)
      .execute();
    const hidden = await call('GET', '/api/contacts/list', { token: agent.token });
    expect([hidden.status, hidden.body.description]).toEqual([403, CONTACT_STRINGS.hidden]);
    expect((await call('GET', '/api/contacts/export', { token: agent.token })).status).toBe(403);
    expect((await call('GET', '/api/contacts/list', { token: admin.token })).status).toBe(200);
  });

  it('CONTACT import 10,000 rows with bad ones: a dry run lists errors per row and writes nothing; the import keeps the good rows', async () => {
    const admin = await signUpVia(call);
    const tag = uniq();
    const lines = ['Name,E-mail,Phone,Salutation'.replace('E-mail', 'email').replace('Phone', 'phone').toLowerCase()];
    const bad = new Map<number, RegExp>();
    for (let i = 0; i < 10_000; i++) {
      const row = i + 2;
      if (i % 1000 === 7) {
        lines.push(`Bad phone ${i},,12 34,`);
        bad.set(row, /cannot be read/);
      } else if (i % 1000 === 8) {
        lines.push(`Bad mail ${i},not-mail,,`);
        bad.set(row, /not an e-mail/);
      } else if (i % 1000 === 9) {
        lines.push(`Twice ${i},imp-${tag}-0@example.org,,`);
        bad.set(row, /row 2 of this file/);
      } else lines.push(`${csvField(`Person, ${i}`)},imp-${tag}-${i}@example.org,,Dr`);
    }
    lines.push(',,,'); // a blank line is not a row
    const csv = lines.join('\n');
    const count = async () =>
      (await db().selectFrom('contacts').select('id').where('account_id', '=', admin.accountId).execute()).length;
    const dry = await call('POST', '/api/contacts/import', { token: admin.token, body: { csv, dry_run: true } });
    expect(dry.status, dry.text.slice(0, 300)).toBe(200);
    expect(dry.body).toMatchObject({ dry_run: true, rows: 10_000, created: 10_000 - bad.size, updated: 0 });
    expect(dry.body.errors.map((e: { row: number }) => e.row)).toEqual([...bad.keys()]);
    for (const e of dry.body.errors as { row: number; message: string }[]) expect(e.message).toMatch(bad.get(e.row)!);
    expect(await count()).toBe(0);

    const done = await call('POST', '/api/contacts/import', { token: admin.token, body: { csv } });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ dry_run: false, created: 10_000 - bad.size, errors: dry.body.errors });
    expect(await count()).toBe(10_000 - bad.size);
    const one = (await list(admin.token, `?keyword=imp-${tag}-42@`)).contacts[0];
    expect(one).toMatchObject({ name: 'Person, 42', salutation: 'Dr', uid: `imp-${tag}-42@example.org` });

    // The same file again updates the same contacts; nobody is doubled.
    const again = await call('POST', '/api/contacts/import', {
      token: admin.token,
      body: { csv: `name,email,phone\nPerson Renamed,IMP-${tag}-42@example.org,+60 12 111 2222\n` },
    });
    expect(again.body).toMatchObject({ created: 0, updated: 1, errors: [] });
    expect(await count()).toBe(10_000 - bad.size);
    const renamed = await detail(admin.token, one.id);
    expect(renamed.name).toBe('Person Renamed');
    expect(renamed.salutation).toBe('Dr');
    expect(renamed.identifiers.map((i) => i.value)).toContain('+60121112222');

    // The export reads back in: same columns, the phone guarded against spreadsheets and read back as itself.
    const out = await fetch(`${s.url}/api/contacts/export`, { headers: { authorization: `Bearer ${admin.token}` } });
    expect(out.headers.get('content-type')).toMatch(/^text\/csv/);
    const rows = parseCsv(await out.text());
    expect(rows[0]).toEqual(['name', 'salutation', 'email', 'phone', 'id_type', 'id_number', 'notes']);
    expect(rows).toHaveLength(1 + 10_000 - bad.size);
    expect(rows.find((r) => r[2] === `imp-${tag}-42@example.org`)?.slice(0, 4)).toEqual([
      'Person Renamed',
      'Dr',
      `imp-${tag}-42@example.org`,
      "'+60121112222",
    ]);
    const back = await call('POST', '/api/contacts/import', {
      token: admin.token,
      body: { csv: rows.map((r) => r.map(csvField).join(',')).join('\n'), dry_run: true },
    });
    expect(back.body).toMatchObject({ created: 0, updated: 10_000 - bad.size, errors: [] });

    for (const body of [{ csv: 'a,b\n1,2' }, { csv: 'name\n' }, { csv: `name\n${'x\n'.repeat(20_001)}` }, {}]) {
      const r = await call('POST', '/api/contacts/import', { token: admin.token, body });
      expect(r.status, r.text.slice(0, 200)).toBe(400);
    }
    expect(await count()).toBe(10_000 - bad.size);
  }, 120_000);
});

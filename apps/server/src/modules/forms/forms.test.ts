import { DEFAULT_FORM_FIELDS, FORM_STRINGS } from '@parley/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUserVia, apiClient, type Call, type SignedUp, signUpVia, uniq } from '../../testing/api.js';
import { dialects, startTestServer } from '../../testing/support.js';

describe.each(dialects)('forms (%s)', (dialect) => {
  let s: Awaited<ReturnType<typeof startTestServer>>;
  let call: Call;
  const db = () => s.handle.db;
  let ip = 0;
  /** Each public call from its own address, unless a test means one address. */
  const from = (addr = `10.9.${Math.floor(++ip / 250)}.${(ip % 250) + 1}`) => ({ 'x-forwarded-for': addr });

  beforeAll(async () => {
    s = await startTestServer(dialect, { TRUST_PROXY: 'true' });
    call = apiClient(s.url);
  });
  afterAll(async () => {
    await s?.stop();
  });

  const mainToken = async (admin: SignedUp) => {
    const r = await call('GET', '/api/forms/settings', { token: admin.token });
    expect(r.status, r.text).toBe(200);
    return r.body.data[0].token as string;
  };
  const good = (over: Record<string, string> = {}) => ({
    name: 'Noor Aziz',
    email: `noor-${uniq()}@example.org`,
    subject: 'Broken zipper',
    message: 'The zipper of my bag broke after a week.',
    ...over,
  });
  const counts = async (accountId: number) => ({
    tickets: (await db().selectFrom('tickets').select('id').where('account_id', '=', accountId).execute()).length,
    entries: (await db().selectFrom('form_entries').select('id').where('account_id', '=', accountId).execute()).length,
  });

  it('CONTACT-01 CONTACT-02 CONTACT-04 CONTACT-05 the public form opens a MANUAL ticket with its contact; the entry is on the Main tab', async () => {
    const admin = await signUpVia(call);
    const first = await call('GET', '/api/forms', { token: admin.token });
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({ data: [], total: 0, tabs: [], main: { name: FORM_STRINGS.mainName } });
    const token = await mainToken(admin);
    const pub = await call('GET', `/api/public/forms/${token}`);
    expect(pub.body).toMatchObject({
      name: FORM_STRINGS.mainName,
      company: admin.company,
      fields: DEFAULT_FORM_FIELDS,
    });

    const values = good({ phone: '+60 12-345 6789' });
    const sent = await call('POST', `/api/public/forms/${token}`, { body: { values }, headers: from() });
    expect(sent.status, sent.text).toBe(200);
    const t = await db()
      .selectFrom('tickets')
      .selectAll()
      .where('account_id', '=', admin.accountId)
      .executeTakeFirstOrThrow();
    expect(t).toMatchObject({ channel: 'MANUAL', title: 'Broken zipper', name: 'Noor Aziz', email: values.email });
    expect(t.contact_id).not.toBeNull();
    const contact = await call('GET', `/api/contacts/${t.contact_id}`, { token: admin.token });
    expect(contact.body.contact.identifiers.map((i: { value: string }) => i.value)).toEqual([
      values.email,
      '+60123456789',
    ]);
    const message = await db()
      .selectFrom('messages')
      .select(['message', 'sender'])
      .where('ticket_id', '=', t.id)
      .executeTakeFirstOrThrow();
    expect(message).toEqual({
      sender: 'visitor',
      message: `${values.message}\nYour name: Noor Aziz\nE-mail: ${values.email}\nPhone: +60 12-345 6789`,
    });
    const listed = await call('GET', '/api/forms', { token: admin.token });
    expect(listed.body.total).toBe(1);
    expect(listed.body.data[0]).toMatchObject({ ticket_id: Number(t.id), form_data: values });
    expect(listed.body.fields).toMatchObject({ name: 'Your name', message: 'How can we help?' });
    // Another account's people never see it.
    const other = await signUpVia(call);
    expect((await call('GET', '/api/forms', { token: other.token })).body.total).toBe(0);
    const mainId = listed.body.main.id;
    expect((await call('GET', `/api/contacts/custom?id=${mainId}`, { token: other.token })).status).toBe(404);
  });

  it('CONTACT-03 CONTACT-06 CONTACT-07 a custom tab pages its entries by data_per_page; a choice is stored as an object with name', async () => {
    const admin = await signUpVia(call);
    const made = await call('POST', '/api/forms/settings', {
      token: admin.token,
      body: {
        name: 'Returns',
        data_per_page: 5,
        start_index: 1,
        fields: [
          { key: 'email', label: 'E-mail', type: 'email', required: true },
          { key: 'reason', label: 'Reason', type: 'select', required: true, options: ['Too small', 'Broken'] },
          { key: 'bought', label: 'Bought on', type: 'date' },
        ],
      },
    });
    expect(made.status, made.text).toBe(200);
    const forms = (await call('GET', '/api/forms/settings', { token: admin.token })).body.data;
    const returns = forms.find((f: { id: number }) => f.id === made.body.id);
    for (let i = 0; i < 7; i++) {
      const r = await call('POST', `/api/public/forms/${returns.token}`, {
        body: {
          values: {
            email: `r${i}-${uniq()}@example.org`,
            reason: i % 2 ? 'Broken' : 'Too small',
            bought: '2026-11-02',
          },
        },
        headers: from(),
      });
      expect(r.status, r.text).toBe(200);
    }
    const tabs = (await call('GET', '/api/forms', { token: admin.token })).body.tabs;
    expect(tabs).toEqual([{ id: made.body.id, name: 'Returns', start_index: 1, data_per_page: 5 }]);
    const p0 = await call('GET', `/api/contacts/custom?id=${made.body.id}&index=0`, { token: admin.token });
    expect(p0.body.total).toBe(7);
    expect(p0.body.data).toHaveLength(5);
    expect(p0.body.data[0].form_data.reason).toEqual({ name: 'Too small' });
    expect(p0.body.fields).toEqual({ email: 'E-mail', reason: 'Reason', bought: 'Bought on' });
    // The kinds too: the screen shows the date answer (stored YYYY-MM-DD) as dates read.
    expect(p0.body.types).toEqual({ email: 'email', reason: 'select', bought: 'date' });
    expect(p0.body.data[0].form_data.bought).toBe('2026-11-02');
    // The ticket's first message reads the date as every screen shows one.
    const first = await db()
      .selectFrom('messages')
      .innerJoin('tickets', 'tickets.id', 'messages.ticket_id')
      .select('messages.message')
      .where('tickets.account_id', '=', admin.accountId)
      .where('messages.message', 'like', '%Bought on:%')
      .executeTakeFirstOrThrow();
    expect(first.message).toContain('Bought on: 2/11/2026');
    const p1 = await call('GET', `/api/contacts/custom?id=${made.body.id}&index=1`, { token: admin.token });
    expect(p1.body.data).toHaveLength(2);
    expect(new Set([...p0.body.data, ...p1.body.data].map((e: { id: number }) => e.id)).size).toBe(7);
    // With no subject field the title names the form and who sent it.
    const titles = await db().selectFrom('tickets').select('title').where('account_id', '=', admin.accountId).execute();
    expect(titles[0]!.title).toMatch(/^Returns: r\d-.*@example\.org$/);
  });

  it('CONTACT bad answers, a guessed token, a closed form, the hidden field and the rate limit change nothing', async () => {
    const admin = await signUpVia(call);
    const token = await mainToken(admin);
    const before = await counts(admin.accountId);
    const cases: [Record<string, string>, string][] = [
      [good({ subject: '' }), FORM_STRINGS.required('Subject')],
      [good({ email: 'nope' }), FORM_STRINGS.badEmail('E-mail')],
      [good({ phone: 'call me' }), FORM_STRINGS.badPhone('Phone')],
      [good({ colour: 'red' }), FORM_STRINGS.unknownField('colour')],
      [good({ message: 'x'.repeat(5001) }), FORM_STRINGS.tooLong('How can we help?')],
    ];
    for (const [values, description] of cases) {
      const r = await call('POST', `/api/public/forms/${token}`, { body: { values }, headers: from() });
      expect([r.status, r.body.description]).toEqual([400, description]);
    }
    for (const body of [{}, { values: 'x' }, { values: { name: 5 } }]) {
      const r = await call('POST', `/api/public/forms/${token}`, { body, headers: from() });
      expect(r.status, r.text).toBe(400);
    }
    // A script in an answer is stored as text (the conversation renders text, never HTML).
    const script = '<script>alert(1)</script>';
    expect(
      (
        await call('POST', `/api/public/forms/${token}`, {
          body: { values: good({ message: script }) },
          headers: from(),
        })
      ).status,
    ).toBe(200);
    const stored = await db()
      .selectFrom('messages')
      .innerJoin('tickets', 'tickets.id', 'messages.ticket_id')
      .select('messages.message')
      .where('tickets.account_id', '=', admin.accountId)
      .executeTakeFirstOrThrow();
    expect(stored.message.startsWith(script)).toBe(true);
    const one = await counts(admin.accountId);
    expect(one).toEqual({ tickets: before.tickets + 1, entries: before.entries + 1 });

    // The hidden field: thanked, nothing kept.
    const bot = await call('POST', `/api/public/forms/${token}`, {
      body: { values: good(), website: 'http://spam.example' },
      headers: from(),
    });
    expect(bot.status).toBe(200);
    expect(await counts(admin.accountId)).toEqual(one);
    // A token nobody has; a form switched off.
    expect((await call('GET', `/api/public/forms/${token}x`)).status).toBe(404);
    expect((await call('POST', `/api/public/forms/${token}x`, { body: { values: good() } })).status).toBe(404);
    const main = (await call('GET', '/api/forms/settings', { token: admin.token })).body.data[0];
    const off = await call('PUT', `/api/forms/settings/${main.id}`, {
      token: admin.token,
      body: { name: main.name, fields: main.fields, active: false },
    });
    expect(off.status, off.text).toBe(200);
    const closed = await call('POST', `/api/public/forms/${token}`, { body: { values: good() }, headers: from() });
    expect([closed.status, closed.body.description]).toEqual([410, FORM_STRINGS.closed]);
    await call('PUT', `/api/forms/settings/${main.id}`, {
      token: admin.token,
      body: { name: main.name, fields: main.fields, active: true },
    });
    // Five a ten minutes from one address, then 429; another address still gets through.
    const one_ip = from('10.99.0.1');
    for (let i = 0; i < 5; i++)
      await call('POST', `/api/public/forms/${token}`, { body: { values: good({ subject: '' }) }, headers: one_ip });
    const limited = await call('POST', `/api/public/forms/${token}`, { body: { values: good() }, headers: one_ip });
    expect([limited.status, limited.body.description]).toEqual([429, FORM_STRINGS.tooMany]);
    expect(await counts(admin.accountId)).toEqual(one);
    expect(
      (await call('POST', `/api/public/forms/${token}`, { body: { values: good() }, headers: from() })).status,
    ).toBe(200);
  });

  it('CONTACT forms are changed by admins only; keys unique, a choice needs options, the Main form stays, a new link ends the old', async () => {
    const admin = await signUpVia(call);
    const agent = await addUserVia(call, admin.token, { username: `ag-${uniq()}`, type: 'agent' });
    const form = { name: 'Quotes', fields: [{ key: 'email', label: 'E-mail', type: 'email' }] };
    expect((await call('POST', '/api/forms/settings', { token: agent.token, body: form })).status).toBe(403);
    expect((await call('GET', '/api/forms/settings', { token: agent.token })).status).toBe(403);
    expect((await call('GET', '/api/forms', { token: agent.token })).status).toBe(200);
    const twice = await call('POST', '/api/forms/settings', {
      token: admin.token,
      body: { ...form, fields: [...form.fields, { key: 'email', label: 'Again', type: 'text' }] },
    });
    expect([twice.status, twice.body.description]).toEqual([400, FORM_STRINGS.keyTaken('email')]);
    const choice = await call('POST', '/api/forms/settings', {
      token: admin.token,
      body: { ...form, fields: [{ key: 'size', label: 'Size', type: 'select' }] },
    });
    expect([choice.status, choice.body.description]).toEqual([400, FORM_STRINGS.needsOptions('Size')]);
    for (const body of [
      { ...form, fields: [] },
      { ...form, name: '' },
      { ...form, data_per_page: 1000 },
      {
        ...form,
        fields: [{ key: 'Bad Key', label: 'x', type: 'text' }],
      },
    ])
      expect((await call('POST', '/api/forms/settings', { token: admin.token, body })).status).toBe(400);
    const main = (await call('GET', '/api/forms/settings', { token: admin.token })).body.data[0];
    const keep = await call('DELETE', `/api/forms/settings/${main.id}`, { token: admin.token });
    expect([keep.status, keep.body.description]).toEqual([409, FORM_STRINGS.mainKept]);
    const renewed = await call('POST', `/api/forms/settings/${main.id}/token`, { token: admin.token });
    expect(renewed.body.token).not.toBe(main.token);
    expect((await call('GET', `/api/public/forms/${main.token}`)).status).toBe(404);
    expect((await call('GET', `/api/public/forms/${renewed.body.token}`)).status).toBe(200);
    const made = await call('POST', '/api/forms/settings', { token: admin.token, body: form });
    expect((await call('DELETE', `/api/forms/settings/${made.body.id}`, { token: admin.token })).status).toBe(200);
    expect((await call('GET', `/api/contacts/custom?id=${made.body.id}`, { token: admin.token })).status).toBe(404);
    for (const q of ['?id=abc', '?id=1&index=-1', '', '?id=0'])
      expect((await call('GET', `/api/contacts/custom${q}`, { token: admin.token })).status).toBe(400);
  });

  it('CONTACT-08 CONTACT-09 references: the published articles and the forms taking requests, with their public addresses', async () => {
    const admin = await signUpVia(call);
    const made = await call('POST', '/api/kb/articles', {
      token: admin.token,
      body: { type: 'kb', lang: 'en', title: 'Resetting your password', body: 'Open Settings.' },
    });
    expect(made.status, made.text).toBe(200);
    const draft = await call('POST', '/api/kb/articles', {
      token: admin.token,
      body: { type: 'kb', lang: 'en', title: 'Draft only', body: 'x' },
    });
    expect(draft.status).toBe(200);
    const articleId = made.body.data.id;
    const published = await call('POST', `/api/kb/articles/${articleId}/publish`, { token: admin.token });
    expect(published.status, published.text).toBe(200);
    const main = (await call('GET', '/api/forms/settings', { token: admin.token })).body.data[0];
    const r = await call('GET', '/api/proxy/references', { token: admin.token });
    expect(r.status, r.text).toBe(200);
    expect(r.body.references).toEqual([
      {
        kind: 'article',
        title: 'Resetting your password',
        url: expect.stringMatching(/^\/support\/kb\/en\/\d+\?site=[\w-]+$/),
      },
      { kind: 'form', title: FORM_STRINGS.mainName, url: `/new_ticket/${main.token}` },
    ]);
    const other = await signUpVia(call);
    const theirs = (await call('GET', '/api/proxy/references', { token: other.token })).body.references;
    expect(theirs.map((x: { title: string }) => x.title)).toEqual([FORM_STRINGS.mainName]);
  });
});

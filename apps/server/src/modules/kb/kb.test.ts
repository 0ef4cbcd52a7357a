import { KB_STRINGS, KB_TITLE_MAX } from '@parley/contracts';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUserVia, apiClient, type Call, type SignedUp, signUpVia, uniq } from '../../testing/api.js';
import { dialects, startTestServer } from '../../testing/support.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;

describe.each(dialects)('knowledge base (%s)', (dialect) => {
  let s: Server;
  let call: Call;
  let a: SignedUp;
  let b: SignedUp;
  let agent: { id: number; token: string; username: string };
  let supervisor: { id: number; token: string; username: string };
  const db = () => s.handle.db;
  const articles = async () => (await db().selectFrom('kb_articles').selectAll().orderBy('id').execute()).length;

  beforeAll(async () => {
    s = await startTestServer(dialect);
    call = apiClient(s.url);
    a = await signUpVia(call);
    b = await signUpVia(call);
    agent = await addUserVia(call, a.token, { username: `kb-agent-${uniq()}`, type: 'agent' });
    supervisor = await addUserVia(call, a.token, { username: `kb-sup-${uniq()}`, type: 'supervisor' });
  });
  afterAll(async () => {
    await s?.stop();
  });

  const article = (over: Record<string, unknown> = {}) => ({
    type: 'kb',
    lang: 'en',
    title: 'Reset your password',
    body: '# Steps\n\n1. Open **Settings**\n2. Choose *Password*',
    questions: [{ question: 'How long is a reset link valid?', answer: 'One hour.' }],
    ...over,
  });
  const create = async (token: string, over: Record<string, unknown> = {}) => {
    const r = await call('POST', '/api/kb/articles', { token, body: article(over) });
    expect(r.status, r.text).toBe(200);
    return r.body.data as { id: number; status: string; questions: { id: number }[] };
  };
  const site = async (token: string) => (await call('GET', '/api/kb/site', { token })).body.token as string;

  it('KB an agent writes a draft; it is listed, read back and changed, with its questions kept by id', async () => {
    const made = await create(agent.token, { slug: `reset-${uniq()}` });
    expect(made).toMatchObject({ status: 'draft', title: 'Reset your password', type: 'kb', lang: 'en' });
    const got = await call('GET', `/api/kb/articles/${made.id}`, { token: a.token });
    expect(got.body.data.updated_by).toBe(agent.username);
    expect(got.body.data.questions).toEqual([
      { id: made.questions[0]!.id, question: 'How long is a reset link valid?', answer: 'One hour.' },
    ]);
    const changed = await call('PUT', `/api/kb/articles/${made.id}`, {
      token: supervisor.token,
      body: article({
        title: 'Reset a password',
        questions: [
          { id: made.questions[0]!.id, question: 'How long is the link valid?', answer: 'One hour.' },
          { question: 'Can an admin reset it?', answer: 'Yes.' },
        ],
      }),
    });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.data.title).toBe('Reset a password');
    expect(changed.body.data.questions.map((q: { id: number }) => q.id)[0]).toBe(made.questions[0]!.id);
    expect(changed.body.data.questions).toHaveLength(2);
    const list = await call('GET', '/api/kb/articles?type=kb&lang=en', { token: agent.token });
    expect(list.body.data.map((x: { id: number }) => x.id)).toContain(made.id);
    expect((await call('GET', '/api/kb/articles?type=manual', { token: agent.token })).body.data).toEqual([]);
  });

  it('KB only admins and supervisors publish, unpublish and delete; agents get 403 and nothing changes', async () => {
    const made = await create(agent.token);
    for (const path of [`/api/kb/articles/${made.id}/publish`, `/api/kb/articles/${made.id}/unpublish`]) {
      const r = await call('POST', path, { token: agent.token });
      expect(r.status).toBe(403);
      expect(r.body.description).toBe(KB_STRINGS.publishNotAllowed);
    }
    expect((await call('DELETE', `/api/kb/articles/${made.id}`, { token: agent.token })).status).toBe(403);
    const row = await db().selectFrom('kb_articles').select('status').where('id', '=', made.id).executeTakeFirst();
    expect(row?.status).toBe('draft');

    const pub = await call('POST', `/api/kb/articles/${made.id}/publish`, { token: supervisor.token });
    expect(pub.body.data).toMatchObject({ status: 'published' });
    expect(pub.body.data.published_at).toBeGreaterThan(0);
    const un = await call('POST', `/api/kb/articles/${made.id}/unpublish`, { token: a.token });
    expect(un.body.data).toMatchObject({ status: 'draft', published_at: null });
    expect((await call('DELETE', `/api/kb/articles/${made.id}`, { token: a.token })).status).toBe(200);
    expect((await call('GET', `/api/kb/articles/${made.id}`, { token: a.token })).status).toBe(404);
    expect(await db().selectFrom('kb_questions').select('id').where('article_id', '=', made.id).execute()).toEqual([]);
  });

  it("KB public reads show only published articles of the token's account, by id or slug", async () => {
    const slug = `public-${uniq()}`;
    const draft = await create(a.token, { title: 'Draft only' });
    const live = await create(a.token, { title: 'Live article', slug });
    await call('POST', `/api/kb/articles/${live.id}/publish`, { token: a.token });
    const bArticle = await create(b.token, { title: 'B article' });
    await call('POST', `/api/kb/articles/${bArticle.id}/publish`, { token: b.token });
    const token = await site(a.token);
    expect(token).toBe(await site(agent.token));

    const index = await call('GET', `/api/public/kb/${token}/kb/en`);
    expect(index.status, index.text).toBe(200);
    const ids = index.body.articles.map((x: { id: number }) => x.id);
    expect(ids).toContain(live.id);
    expect(ids).not.toContain(draft.id);
    expect(ids).not.toContain(bArticle.id);
    expect((await call('GET', `/api/public/kb/${token}/kb/en/${live.id}`)).body.data.title).toBe('Live article');
    expect((await call('GET', `/api/public/kb/${token}/kb/en/${slug}`)).body.data.id).toBe(live.id);
    // A draft, another account's article, the wrong collection or language, an unknown token: 404.
    for (const path of [
      `/api/public/kb/${token}/kb/en/${draft.id}`,
      `/api/public/kb/${token}/kb/en/${bArticle.id}`,
      `/api/public/kb/${token}/manual/en/${live.id}`,
      `/api/public/kb/${token}/kb/ms/${live.id}`,
      `/api/public/kb/${token}/kb/en/999999999`,
      `/api/public/kb/${'x'.repeat(24)}/kb/en/${live.id}`,
    ])
      expect((await call('GET', path)).status, path).toBe(404);

    const map = await call('GET', `/support/sitemap.xml?site=${token}`);
    expect(map.status).toBe(200);
    expect(map.text).toContain('<urlset');
    expect(map.text).toContain(`/support/kb/en/${slug}?site=${token}`);
    expect(map.text).not.toContain(`/${draft.id}?`);
    expect(map.text).not.toContain(`/${bArticle.id}?`);
    expect((await call('GET', `/support/sitemap.xml?site=${'y'.repeat(24)}`)).status).toBe(404);
  });

  it('KB full-text search finds published articles by a word prefix, in title or body, of the account only', async () => {
    const word = `zebra${uniq()}`;
    const mine = await create(a.token, { title: `Striped ${word}`, body: 'Plain body' });
    const inBody = await create(a.token, { title: 'Other', body: `Mentions ${word}fish in the body` });
    const draft = await create(a.token, { title: `${word} draft` });
    const other = await create(b.token, { title: `${word} of B` });
    for (const x of [mine, inBody]) await call('POST', `/api/kb/articles/${x.id}/publish`, { token: a.token });
    await call('POST', `/api/kb/articles/${other.id}/publish`, { token: b.token });

    const hits = await call('GET', `/api/kb/search?q=${word.slice(0, 8)}`, { token: agent.token });
    expect(hits.status, hits.text).toBe(200);
    const ids = hits.body.data.map((x: { id: number }) => x.id);
    expect(ids.sort()).toEqual([mine.id, inBody.id].sort());
    const hit = hits.body.data.find((x: { id: number }) => x.id === inBody.id);
    expect(hit.text).toBe(`Mentions ${word}fish in the body`);
    expect(hit.url).toBe(`/support/kb/en/${inBody.id}?site=${await site(a.token)}`);
    expect(hit.snippet).toContain('<mark>');
    // The editor's list searches drafts too.
    const all = await call('GET', `/api/kb/articles?q=${encodeURIComponent(word)}`, { token: a.token });
    expect(all.body.data.map((x: { id: number }) => x.id)).toContain(draft.id);
    // FTS syntax is only text.
    expect(
      (await call('GET', `/api/kb/search?q=${encodeURIComponent('"* OR NEAR(')}`, { token: a.token })).status,
    ).toBe(200);
    // The public index searches too.
    const pub = await call('GET', `/api/public/kb/${await site(a.token)}/kb/en?q=${word}`);
    expect(pub.body.articles.map((x: { id: number }) => x.id).sort()).toEqual([mine.id, inBody.id].sort());
  });

  it('KB bad input is a 400 and stores nothing: unknown type or language, too long title, bad slug, long search', async () => {
    const before = await articles();
    for (const body of [
      article({ type: 'wiki' }),
      article({ lang: 'xx' }),
      article({ title: 'x'.repeat(KB_TITLE_MAX + 1) }),
      article({ title: '   ' }),
      article({ slug: 'Not A Slug' }),
      article({ body: 'x'.repeat(50_001) }),
      article({ category_id: 'one' }),
    ]) {
      const r = await call('POST', '/api/kb/articles', { token: a.token, body });
      expect(r.status, JSON.stringify(body).slice(0, 80)).toBe(400);
    }
    expect(
      (await call('POST', '/api/kb/articles', { token: a.token, body: article({ type: 'wiki' }) })).body.description,
    ).toMatch(/Unknown collection/);
    expect(await articles()).toBe(before);
    expect((await call('GET', '/api/kb/articles?lang=xx', { token: a.token })).status).toBe(400);
    expect((await call('GET', `/api/kb/search?q=${'a'.repeat(201)}`, { token: a.token })).status).toBe(400);
    expect((await call('GET', `/api/public/kb/${await site(a.token)}/wiki/en`)).status).toBe(400);
    expect((await call('GET', `/api/public/kb/${await site(a.token)}/kb/xx`)).status).toBe(400);
    // Guessed ids: 404, for the editor too.
    for (const id of [999999, 1])
      if (
        !(await db()
          .selectFrom('kb_articles')
          .select('id')
          .where('id', '=', id)
          .where('account_id', '=', a.accountId)
          .executeTakeFirst())
      )
        expect((await call('PUT', `/api/kb/articles/${id}`, { token: a.token, body: article() })).status).toBe(404);
    // A slug is unique within its collection and language.
    const slug = `dup-${uniq()}`;
    await create(a.token, { slug });
    expect((await call('POST', '/api/kb/articles', { token: a.token, body: article({ slug }) })).status).toBe(409);
    expect(
      (await call('POST', '/api/kb/articles', { token: a.token, body: article({ slug, lang: 'ms' }) })).status,
    ).toBe(200);
  });

  it("KB another account's article or category is 404 for every call, and stays as it was", async () => {
    const mine = await create(a.token, { title: 'A private' });
    const cat = await call('POST', '/api/kb/categories', {
      token: a.token,
      body: { type: 'kb', lang: 'en', name: 'A category' },
    });
    expect(cat.status, cat.text).toBe(200);
    const calls: [string, string, unknown?][] = [
      ['GET', `/api/kb/articles/${mine.id}`],
      ['PUT', `/api/kb/articles/${mine.id}`, article()],
      ['POST', `/api/kb/articles/${mine.id}/publish`],
      ['DELETE', `/api/kb/articles/${mine.id}`],
      ['PUT', `/api/kb/categories/${cat.body.data.id}`, { type: 'kb', lang: 'en', name: 'Taken' }],
      ['DELETE', `/api/kb/categories/${cat.body.data.id}`],
      ['POST', '/api/kb/articles', article({ category_id: cat.body.data.id })],
    ];
    for (const [method, path, body] of calls)
      expect((await call(method, path, { token: b.token, body })).status, `${method} ${path}`).toBe(404);
    const row = await db()
      .selectFrom('kb_articles')
      .select(['title', 'status'])
      .where('id', '=', mine.id)
      .executeTakeFirst();
    expect(row).toEqual({ title: 'A private', status: 'draft' });
    expect((await call('GET', '/api/kb/categories', { token: b.token })).body.data).toEqual([]);
  });

  it('KB categories: publishers manage them; an article must use one of its own collection and language', async () => {
    expect(
      (await call('POST', '/api/kb/categories', { token: agent.token, body: { type: 'kb', lang: 'en', name: 'No' } }))
        .status,
    ).toBe(403);
    const cat = (
      await call('POST', '/api/kb/categories', {
        token: supervisor.token,
        body: { type: 'manual', lang: 'en', name: 'Setup' },
      })
    ).body.data;
    expect(cat).toMatchObject({ type: 'manual', lang: 'en', name: 'Setup' });
    const wrong = await call('POST', '/api/kb/articles', {
      token: agent.token,
      body: article({ category_id: cat.id }),
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.description).toBe(KB_STRINGS.categoryOtherCollection);
    const inCat = await create(agent.token, { type: 'manual', category_id: cat.id });
    expect((await call('DELETE', `/api/kb/categories/${cat.id}`, { token: a.token })).status).toBe(409);
    await call('DELETE', `/api/kb/articles/${inCat.id}`, { token: a.token });
    expect((await call('DELETE', `/api/kb/categories/${cat.id}`, { token: a.token })).status).toBe(200);
  });

  it('KB script and HTML in an article are stored as written and served as JSON text, never as a page', async () => {
    const body = '<script>alert(1)</script>\n\n<img src=x onerror=alert(2)> [x](javascript:alert(3))';
    const made = await create(a.token, { title: '<b>Bold</b> title', body });
    await call('POST', `/api/kb/articles/${made.id}/publish`, { token: a.token });
    const token = await site(a.token);
    const res = await fetch(`${s.url}/api/public/kb/${token}/kb/en/${made.id}`);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const data = ((await res.json()) as { data: { body: string; title: string } }).data;
    expect(data.body).toBe(body);
    expect(data.title).toBe('<b>Bold</b> title');
    // Snippets are escaped: the tags arrive as text.
    const list = await call('GET', `/api/public/kb/${token}/kb/en?q=alert`);
    const item = list.body.articles.find((x: { id: number }) => x.id === made.id);
    expect(item.snippet).not.toContain('<script');
    expect(item.snippet).toContain('&lt;');
  });

  it('KB an image of a published article is served without sign-in; other uploads and drafts are not', async () => {
    const png = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#f00' } })
      .png()
      .toBuffer();
    const upload = async () => {
      const form = new FormData();
      form.append('attachment[]', new Blob([new Uint8Array(png)]), 'shot.png');
      const res = await fetch(`${s.url}/api/upload`, {
        method: 'POST',
        headers: { authorization: `Bearer ${a.token}` },
        body: form,
      });
      return ((await res.json()) as { file: string[] }).file[0]!;
    };
    const shown = await upload();
    const hidden = await upload();
    const made = await create(a.token, { body: `![Screen](${shown})` });
    const token = await site(a.token);
    const publicUrl = (file: string) => file.replace(/^\/files\//, `/api/public/kb/${token}/files/`);
    expect((await fetch(`${s.url}${publicUrl(shown)}`)).status).toBe(404);
    await call('POST', `/api/kb/articles/${made.id}/publish`, { token: a.token });
    const ok = await fetch(`${s.url}${publicUrl(shown)}`);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toBe('image/png');
    expect((await fetch(`${s.url}${publicUrl(hidden)}`)).status).toBe(404);
    // Another account's token does not reach A's files.
    const bToken = await site(b.token);
    expect((await fetch(`${s.url}${shown.replace(/^\/files\//, `/api/public/kb/${bToken}/files/`)}`)).status).toBe(404);
  });
});

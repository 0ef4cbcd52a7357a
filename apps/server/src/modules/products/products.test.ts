import { PRODUCT_STRINGS as S } from '@parley/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUserVia, apiClient, type Call, signUpVia, uniq } from '../../testing/api.js';
import { dialects, startTestServer } from '../../testing/support.js';

describe.each(dialects)('products (%s)', (dialect) => {
  let s: Awaited<ReturnType<typeof startTestServer>>;
  let call: Call;

  beforeAll(async () => {
    s = await startTestServer(dialect);
    call = apiClient(s.url);
  });
  afterAll(async () => {
    await s?.stop();
  });

  const ok = async (method: 'GET' | 'POST' | 'PUT', path: string, token: string, body?: unknown) => {
    const r = await call(method, path, { token, body });
    expect(r.status, `${method} ${path}: ${r.text}`).toBe(200);
    return r.body;
  };
  const product = async (token: string, body: Record<string, unknown>) =>
    (await ok('POST', '/api/products', token, body)).data as { id: number; name: string; code: string | null };
  const ticket = async (token: string, title: string) =>
    (await ok('POST', '/api/ticket/create', token, { title, name: 'Pat', email: 'pat@example.org' })).data.id as number;
  const article = async (token: string, title: string) =>
    (await ok('POST', '/api/kb/articles', token, { type: 'kb', lang: 'en', title, body: 'How to.' })).data.id as number;
  const link = (token: string, ticketId: number, ids: number[]) =>
    call('PUT', `/api/products/ticket/${ticketId}`, { token, body: { product_ids: ids } });
  const rowsOf = async (token: string, query = '') =>
    (await ok('GET', `/api/products${query}`, token)) as {
      data: { id: number; name: string; tickets: number; open_tickets: number; articles: number; active: boolean }[];
      total: number;
    };

  it('SHELL-12 SHELL-13 an admin keeps the catalogue; the list searches name and code with counts; archive and restore', async () => {
    const admin = await signUpVia(call);
    const kettle = await product(admin.token, { name: '  Kettle 2000  ', code: 'KT-2000', description: 'A kettle.' });
    expect(kettle).toMatchObject({ name: 'Kettle 2000', code: 'KT-2000' });
    const toaster = await product(admin.token, { name: 'Toaster', code: '' });
    expect(toaster.code).toBeNull();
    await product(admin.token, { name: 'Blender' });

    const [t1, t2, t3] = [
      await ticket(admin.token, 'Kettle leaks'),
      await ticket(admin.token, 'Kettle sparks'),
      await ticket(admin.token, 'Toast burnt'),
    ];
    expect((await link(admin.token, t1, [kettle.id, toaster.id])).status).toBe(200);
    expect((await link(admin.token, t2, [kettle.id])).status).toBe(200);
    expect((await link(admin.token, t3, [toaster.id])).status).toBe(200);
    await ok('POST', '/api/ticket/status', admin.token, { id: t2, status: 2 });
    const a1 = await article(admin.token, 'Descaling the kettle');
    const linked = await ok('PUT', `/api/products/${kettle.id}/articles`, admin.token, { article_ids: [a1, a1] });
    expect(linked.data.map((a: { title: string }) => a.title)).toEqual(['Descaling the kettle']);

    const all = await rowsOf(admin.token);
    expect(all.total).toBe(3);
    expect(all.data.map((p) => p.name)).toEqual(['Blender', 'Kettle 2000', 'Toaster']);
    expect(all.data[1]).toMatchObject({ tickets: 2, open_tickets: 1, articles: 1 });
    expect(all.data[2]).toMatchObject({ tickets: 2, open_tickets: 2, articles: 0 });
    expect((await rowsOf(admin.token, '?q=kt-2')).data.map((p) => p.name)).toEqual(['Kettle 2000']);
    expect((await rowsOf(admin.token, '?q=TOAST')).data.map((p) => p.name)).toEqual(['Toaster']);
    expect((await rowsOf(admin.token, `?q=${encodeURIComponent('100%')}`)).total).toBe(0);

    const detail = await ok('GET', `/api/products/${kettle.id}`, admin.token);
    expect(detail.data.product).toMatchObject({
      name: 'Kettle 2000',
      description: 'A kettle.',
      tickets: 2,
      active: true,
    });
    expect(detail.data.articles.map((a: { id: number }) => a.id)).toEqual([a1]);
    const tickets = await ok('GET', `/api/products/${kettle.id}/tickets`, admin.token);
    expect(tickets.total).toBe(2);
    expect(tickets.data.map((t: { id: number }) => t.id)).toEqual([t2, t1]);
    expect(tickets.data[0]).toMatchObject({ title: 'Kettle sparks', closed: 2 });

    const edited = await ok('PUT', `/api/products/${kettle.id}`, admin.token, { name: 'Kettle 3000', code: null });
    expect(edited.data).toMatchObject({ name: 'Kettle 3000', code: null, description: 'A kettle.' });
    const archived = await ok('PUT', `/api/products/${kettle.id}`, admin.token, { active: false });
    expect(archived.data.active).toBe(false);
    expect((await rowsOf(admin.token)).data.map((p) => p.name)).toEqual(['Blender', 'Toaster']);
    expect((await rowsOf(admin.token, '?status=archived')).data.map((p) => p.name)).toEqual(['Kettle 3000']);
    expect((await rowsOf(admin.token, '?status=all')).total).toBe(3);
    // An archived product keeps its links but takes no new ones.
    const refused = await link(admin.token, t3, [toaster.id, kettle.id]);
    expect([refused.status, refused.body.description]).toEqual([400, S.archivedProduct('Kettle 3000')]);
    expect(
      (await ok('GET', `/api/products/ticket/${t1}`, admin.token)).data.map((p: { name: string }) => p.name),
    ).toEqual(['Kettle 3000', 'Toaster']);
    expect((await link(admin.token, t1, [kettle.id, toaster.id])).status).toBe(200);
    await ok('PUT', `/api/products/${kettle.id}`, admin.token, { active: true });
    expect((await link(admin.token, t3, [toaster.id, kettle.id])).status).toBe(200);

    const audit = await ok('GET', '/api/audit?limit=25&page=1', admin.token);
    expect(audit.data.map((r: { action: string }) => r.action)).toEqual(
      expect.arrayContaining(['product.created', 'product.updated', 'product.archived', 'product.restored']),
    );
  });

  it('SHELL-13 an agent links and unlinks tickets and articles but may not manage the catalogue', async () => {
    const admin = await signUpVia(call);
    const agent = await addUserVia(call, admin.token, { username: `amy-${uniq()}`, type: 'agent' });
    const p = await product(admin.token, { name: 'Router' });
    const t = await ticket(admin.token, 'No internet');
    const r = await link(agent.token, t, [p.id]);
    expect([r.status, r.body.data.map((x: { name: string }) => x.name)]).toEqual([200, ['Router']]);
    expect((await rowsOf(agent.token)).data[0]).toMatchObject({ tickets: 1, open_tickets: 1 });
    const off = await link(agent.token, t, []);
    expect([off.status, off.body.data]).toEqual([200, []]);
    expect((await ok('GET', `/api/products/${p.id}/tickets`, agent.token)).total).toBe(0);
    const a = await article(agent.token, 'Resetting the router');
    expect((await ok('PUT', `/api/products/${p.id}/articles`, agent.token, { article_ids: [a] })).data).toHaveLength(1);
    expect((await ok('PUT', `/api/products/${p.id}/articles`, agent.token, { article_ids: [] })).data).toEqual([]);

    for (const [method, path, body] of [
      ['POST', '/api/products', { name: 'Agent product' }],
      ['PUT', `/api/products/${p.id}`, { name: 'Agent rename' }],
      ['PUT', `/api/products/${p.id}`, { active: false }],
    ] as const) {
      const res = await call(method, path, { token: agent.token, body });
      expect(res.status, `${method} ${path}`).toBe(403);
    }
    expect((await rowsOf(admin.token)).data.map((x) => [x.name, x.active])).toEqual([['Router', true]]);
  });

  it('SHELL-13 a ticket the agent may not see (a Workspace chat it is not in) is neither listed, counted nor linked', async () => {
    const admin = await signUpVia(call);
    const bob = await addUserVia(call, admin.token, { username: `bob-${uniq()}`, type: 'agent' });
    const cy = await addUserVia(call, admin.token, { username: `cy-${uniq()}`, type: 'agent' });
    const p = await product(admin.token, { name: 'Secret project' });
    const chat = await call('POST', '/api/chat/create', {
      token: admin.token,
      body: { members: [bob.id], title: 'Plans' },
    });
    expect(chat.status, chat.text).toBe(200);
    const chatId = chat.body.data.id as number;
    expect((await link(bob.token, chatId, [p.id])).status).toBe(200);
    const open = await ticket(admin.token, 'Public question');
    expect((await link(admin.token, open, [p.id])).status).toBe(200);

    expect((await ok('GET', `/api/products/${p.id}/tickets`, bob.token)).total).toBe(2);
    const seen = await ok('GET', `/api/products/${p.id}/tickets`, cy.token);
    expect([seen.total, seen.data.map((t: { id: number }) => t.id)]).toEqual([1, [open]]);
    expect((await ok('GET', `/api/products/${p.id}`, cy.token)).data.product.tickets).toBe(1);
    expect((await rowsOf(cy.token)).data[0]!.tickets).toBe(1);
    for (const res of [
      await call('GET', `/api/products/ticket/${chatId}`, { token: cy.token }),
      await link(cy.token, chatId, []),
    ]) {
      expect([res.status, res.body.description]).toEqual([404, S.ticketNotFound]);
    }
    expect((await ok('GET', `/api/products/ticket/${chatId}`, bob.token)).data).toHaveLength(1);
  });

  it("SHELL-13 another account's product, ticket or article is not found and nothing changes", async () => {
    const a = await signUpVia(call);
    const b = await signUpVia(call);
    const mine = await product(a.token, { name: 'Launch kit', code: 'LK' });
    const myTicket = await ticket(a.token, 'Kit missing parts');
    const myArticle = await article(a.token, 'Kit contents');
    expect((await link(a.token, myTicket, [mine.id])).status).toBe(200);
    await ok('PUT', `/api/products/${mine.id}/articles`, a.token, { article_ids: [myArticle] });
    const theirs = await product(b.token, { name: 'Launch kit', code: 'LK' });
    const theirTicket = await ticket(b.token, 'B ticket');

    for (const [method, path, body] of [
      ['GET', `/api/products/${mine.id}`, undefined],
      ['GET', `/api/products/${mine.id}/tickets`, undefined],
      ['PUT', `/api/products/${mine.id}`, { name: 'Taken over', active: false }],
      ['PUT', `/api/products/${mine.id}/articles`, { article_ids: [] }],
      ['GET', `/api/products/ticket/${myTicket}`, undefined],
      ['PUT', `/api/products/ticket/${myTicket}`, { product_ids: [] }],
      ['PUT', `/api/products/ticket/${theirTicket}`, { product_ids: [mine.id] }],
      ['PUT', `/api/products/${theirs.id}/articles`, { article_ids: [myArticle] }],
    ] as const) {
      const r = await call(method, path, { token: b.token, body });
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.text).not.toContain('Kit');
    }
    expect((await rowsOf(b.token)).data.map((p) => [p.name, p.tickets, p.articles])).toEqual([['Launch kit', 0, 0]]);
    const detail = await ok('GET', `/api/products/${mine.id}`, a.token);
    expect(detail.data.product).toMatchObject({ name: 'Launch kit', active: true, tickets: 1, articles: 1 });
  });

  it('SHELL-12 bad input is a 400 and a duplicate name or code a 409, with nothing changed', async () => {
    const admin = await signUpVia(call);
    const p = await product(admin.token, { name: 'Speaker', code: 'SP-1' });
    const t = await ticket(admin.token, 'Speaker hums');
    for (const [method, path, body, text] of [
      ['POST', '/api/products', { name: '   ' }, S.nameRequired],
      ['POST', '/api/products', {}, S.nameRequired],
      ['POST', '/api/products', { name: 'x'.repeat(101) }, S.nameTooLong],
      ['POST', '/api/products', { name: 'Ok', code: 'c'.repeat(41) }, S.codeTooLong],
      ['POST', '/api/products', { name: 'Ok', description: 'd'.repeat(2001) }, S.descriptionTooLong],
      ['PUT', `/api/products/${p.id}`, { active: 'no' }, undefined],
      ['PUT', '/api/products/abc', { name: 'x' }, undefined],
      ['PUT', `/api/products/ticket/${t}`, { product_ids: ['x'] }, undefined],
      ['PUT', `/api/products/ticket/${t}`, { product_ids: Array.from({ length: 51 }, (_, i) => i + 1) }, S.tooMany],
      ['PUT', `/api/products/ticket/${t}`, {}, undefined],
      ['PUT', `/api/products/${p.id}/articles`, { article_ids: [-1] }, undefined],
      ['GET', `/api/products?q=${'q'.repeat(101)}`, undefined, S.searchTooLong],
      ['GET', '/api/products?status=gone', undefined, undefined],
      ['GET', `/api/products/${p.id}/tickets?page=0`, undefined, undefined],
    ] as const) {
      const r = await call(method, path, { token: admin.token, body });
      expect(r.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(400);
      if (text) expect(r.body.description).toContain(text);
    }
    const missing = await link(admin.token, t, [p.id, 999_999_999]);
    expect([missing.status, missing.body.description]).toEqual([404, S.unknownProduct]);

    const dup = await call('POST', '/api/products', { token: admin.token, body: { name: 'SPEAKER' } });
    expect([dup.status, dup.body.description]).toEqual([409, S.nameTaken('SPEAKER')]);
    const dupCode = await call('POST', '/api/products', { token: admin.token, body: { name: 'Other', code: 'sp-1' } });
    expect([dupCode.status, dupCode.body.description]).toEqual([409, S.codeTaken('sp-1')]);
    const other = await product(admin.token, { name: 'Amplifier' });
    const clash = await call('PUT', `/api/products/${other.id}`, { token: admin.token, body: { name: 'speaker' } });
    expect([clash.status, clash.body.description]).toEqual([409, S.nameTaken('speaker')]);
    // Its own name in another case is no clash.
    expect((await call('PUT', `/api/products/${p.id}`, { token: admin.token, body: { name: 'SPEAKER' } })).status).toBe(
      200,
    );
    const both = await Promise.all(
      [1, 2, 3].map(() => call('POST', '/api/products', { token: admin.token, body: { name: 'Same time' } })),
    );
    expect(both.map((r) => r.status).sort()).toEqual([200, 409, 409]);
    const list = await rowsOf(admin.token);
    expect(list.data.map((x) => [x.name, x.tickets])).toEqual([
      ['Amplifier', 0],
      ['Same time', 0],
      ['SPEAKER', 0],
    ]);
  });
});

import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiJson,
  launchBrowser,
  liveChatToken,
  newContext,
  PASSWORD,
  type RunningServer,
  screenshot,
  seedWorkspace,
  signInAs,
  startServer,
  tokenOf,
} from './support.js';

/*
 * Well-known script payloads written through every kind of field a user fills (names, titles, messages,
 * notes, labels, statuses, articles in Markdown, file names, the visitor's form, search), then every screen
 * that shows them opened in Chromium with the product's Content-Security-Policy on. Three things would
 * show a hole: the canary `__xss` called, a CSP violation (markup that became HTML, stopped only by the
 * policy), or, in the DOM, an element the payload made (an event-handler attribute, a `javascript:` link,
 * a script or an iframe document carrying the canary). Each screen is checked only after a payload's
 * marker is on it as text, so a screen that never rendered the data cannot pass.
 */

const MARK = 'XSSMARK';
/** Several vectors in one string: raw HTML, an event handler, SVG, a javascript: link, Markdown, templates. */
const LONG = [
  MARK,
  `<script>__xss('script')</script>`,
  `<img src=x onerror="__xss('img')">`,
  `<svg onload="__xss('svg')"></svg>`,
  `<a href="javascript:__xss('a')">a</a>`,
  `[md](javascript:__xss('md'))`,
  `<iframe srcdoc="<script>parent.__xss('iframe')</script>"></iframe>`,
  `<details open ontoggle="__xss('details')">d</details>`,
  `{{constructor.constructor('__xss(1)')()}}`,
  `"'><body onload="__xss('body')">`,
].join(' ');
/** For titles (200 characters at most): markup, a handler, SVG and a javascript: link. */
const MID = `${MARK} <script>__xss('s')</script><img src=x onerror="__xss('i')"><svg onload="__xss('v')"></svg><a href="javascript:__xss('a')">a</a>`;
/** For fields with a short limit (names, labels). */
const SHORT = `${MARK}<img src=x onerror=__xss(1)>`;

/** What a page records from its first script on: the canary's calls and CSP violations. */
function watch(ctx: BrowserContext) {
  return ctx.addInitScript(() => {
    const w = window as unknown as { __xss(x: unknown): void; __hits: string[]; __csp: string[] };
    w.__hits = [];
    w.__csp = [];
    w.__xss = (x) => w.__hits.push(String(x));
    document.addEventListener('securitypolicyviolation', (e) =>
      w.__csp.push(
        `${e.violatedDirective} ${e.blockedURI} ${e.sample} ${e.sourceFile}:${e.lineNumber}:${e.columnNumber}`,
      ),
    );
  });
}

/** Elements in the page that a payload made, and what the canary and the policy recorded. */
async function holes(page: Page) {
  return page.evaluate(() => {
    const found: string[] = [];
    const scan = (root: Document | ShadowRoot) => {
      for (const el of root.querySelectorAll('*')) {
        for (const a of el.attributes) {
          const v = a.value;
          if (/^on/i.test(a.name) && v.includes('__xss')) found.push(`<${el.tagName.toLowerCase()} ${a.name}>`);
          if (['href', 'src', 'action', 'formaction', 'xlink:href'].includes(a.name) && /^\s*javascript:/i.test(v))
            found.push(`<${el.tagName.toLowerCase()} ${a.name}="${v}">`);
          if (a.name === 'srcdoc' && v.includes('__xss')) found.push('<iframe srcdoc>');
        }
        if (el.tagName === 'SCRIPT' && el.textContent?.includes('__xss')) found.push('<script>');
        if (el.shadowRoot) scan(el.shadowRoot);
      }
    };
    scan(document);
    const w = window as unknown as { __hits: string[]; __csp: string[] };
    return { elements: found, ran: w.__hits, csp: w.__csp };
  });
}

async function expectClean(page: Page, where: string) {
  // The marker as text: the data is on this screen.
  await page.getByText(MARK).first().waitFor({ timeout: 15_000 });
  const h = await holes(page);
  expect({ where, ...h }).toEqual({ where, elements: [], ran: [], csp: [] });
}

describe('XSS payloads through every user-writable field, in Chromium with CSP on', () => {
  let server: RunningServer;
  let browser: Browser;
  let admin = '';
  let ticketId = 0;
  let contactId = 0;
  let caseId = 0;
  let eventId = 0;
  let chatId = 0;
  let articleSlug = '';
  let liveToken = '';
  let site = '';
  const contexts: BrowserContext[] = [];
  const post = (path: string, body: unknown, token = admin) => apiJson(`${server.url}${path}`, 'POST', body, token);

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    admin = await seedWorkspace(server.url, [{ username: 'amy', name: SHORT }]);
    const amy = await tokenOf(server.url, 'amy');
    const amyId = (
      (await apiJson(`${server.url}/api/users`, 'GET', undefined, admin)).data as { id: number; username: string }[]
    ).find((u) => u.username === 'amy')!.id;

    await post('/api/departments', { name: SHORT });
    await post('/api/customstatus', { name: SHORT, needs_reason: false });
    await post('/api/announcement', { message: LONG, level: 'info' });
    await post('/api/label/update', {
      labelArray: [{ name: SHORT, color: '#FF0000', colorDark: '#ff8080', level: 1, sla: 0, isNew: true }],
      delete: [],
    });
    const labels = (await apiJson(`${server.url}/api/label/get`, 'GET', undefined, admin)).data as { id: number }[];
    await post('/api/campaign', { name: SHORT });

    // A ticket from a customer whose name, title, first message and extra field carry payloads.
    const created = await post('/api/ticket/create', {
      title: MID,
      name: SHORT,
      message: LONG,
      other: { [SHORT]: LONG },
      case_type: SHORT,
      assignee: ['ann'],
    });
    ticketId = created.data.id as number;
    await post('/api/ticket/labels', { id: ticketId, label: labels.map((l) => l.id) });
    const reply = await post('/api/ticket/message', { ticket_id: ticketId, message: LONG });
    await post('/api/ticket/note/add', { message_id: reply.data.id, text: LONG });
    // A file whose name is a payload, sent in the ticket.
    const form = new FormData();
    form.append('ticket_id', String(ticketId));
    form.append('attachment[]', new Blob(['hello'], { type: 'text/plain' }), `${SHORT}.txt`);
    const up = await fetch(`${server.url}/api/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}` },
      body: form,
    });
    expect(up.status).toBe(200);
    const file = ((await up.json()) as { file: string[] }).file[0];
    await post('/api/ticket/message', { ticket_id: ticketId, message: '', type: 'text/plain', files: [file] });

    await post('/api/replies/canned', {
      title: SHORT,
      shortcut: 'xss',
      body: `${MID} {{customer.name}}`,
      shared: true,
    });
    await post('/api/macros', { name: SHORT, actions: [{ type: 'priority', value: 'H' }] }).catch(() => null);

    const contact = await post('/api/contacts', {
      name: SHORT,
      salutation: SHORT,
      notes: LONG,
      id_type: 'Passport No.',
      id_number: SHORT,
    });
    contactId = contact.id as number;
    const c = await post('/api/cases', { title: MID, case_type: SHORT, contact_id: contactId });
    caseId = c.case.id as number;
    await post(`/api/cases/${caseId}/notes`, { text: LONG });
    const start = Date.now() + 3_600_000;
    const ev = await post('/api/calendar/events', {
      title: SHORT,
      starts_at: start,
      ends_at: start + 1_800_000,
      notes: LONG,
      contact_id: contactId,
    });
    eventId = ev.event.id as number;

    const cat = await post('/api/kb/categories', { type: 'kb', lang: 'en', name: SHORT });
    const article = await post('/api/kb/articles', {
      type: 'kb',
      lang: 'en',
      category_id: cat.data.id,
      title: SHORT,
      body: `# ${LONG}\n\n${LONG}\n\n<script>__xss('raw')</script>\n\n[click](javascript:__xss('mdlink'))\n\n![img](x" onerror="__xss('mdimg'))`,
      questions: [{ question: SHORT, answer: LONG }],
    });
    await post(`/api/kb/articles/${article.data.id}/publish`, {});
    articleSlug = (article.data.slug as string) ?? String(article.data.id);

    chatId = (await post('/api/chat/create', { members: [amyId], title: SHORT })).data.id as number;
    await post('/api/ticket/message', { ticket_id: chatId, message: LONG }, amy);

    liveToken = await liveChatToken(server.url, admin);
    site = (await apiJson(`${server.url}/api/kb/site`, 'GET', undefined, admin)).token as string;
  }, 120_000);
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    await server?.stop();
  });

  async function page(signedIn = true): Promise<Page> {
    const ctx = await newContext(browser);
    contexts.push(ctx);
    await watch(ctx);
    const p = await ctx.newPage();
    p.on('dialog', (d) => {
      throw new Error(`a dialog opened: ${d.message()}`);
    });
    if (signedIn) await signInAs(p, server.url, 'ann', PASSWORD);
    return p;
  }

  it('the detector sees an injected handler, so a clean result means something', async () => {
    const p = await page(false);
    await p.goto(`${server.url}/support/kb/en`);
    await p.evaluate((m) => {
      const d = document.createElement('div');
      d.innerHTML = `${m}<img src=x onerror="__xss(1)"><a href="javascript:__xss(2)">x</a>`;
      document.body.append(d);
    }, MARK);
    const h = await holes(p);
    expect(h.elements).toEqual(['<img onerror>', '<a href="javascript:__xss(2)">']);
    // The policy stopped the inline handler, and says so.
    await expect.poll(async () => (await holes(p)).csp.length).toBeGreaterThan(0);
    expect((await holes(p)).ran).toEqual([]);
  });

  it('the agent screens show every payload as text', async () => {
    const p = await page();
    const screens: [string, string][] = [
      ['/', 'home and the announcement'],
      ['/ticket', 'the ticket list'],
      [`/ticket/${ticketId}`, 'a ticket: title, messages, note, file name, customer'],
      ['/contacts', 'the contact list'],
      [`/contacts/${contactId}`, 'a contact page'],
      ['/case', 'the case list'],
      [`/case/${caseId}`, 'a case'],
      ['/calendar', 'the calendar'],
      [`/calendar/event/${eventId}`, 'an event'],
      [`/chat/${chatId}`, 'a Workspace chat'],
      ['/settings/users', 'users'],
      ['/settings/departments', 'departments'],
      ['/settings/statuses', 'statuses'],
      ['/settings/labels', 'labels'],
      ['/settings/replies', 'canned replies'],
      ['/kb', 'the knowledge base editor'],
    ];
    for (const [path, what] of screens) {
      await p.goto(`${server.url}${path}`);
      await expectClean(p, `${path} (${what})`);
    }
    // Search highlights what it found: the snippet must stay text.
    await p.goto(`${server.url}/ticket`);
    await p.getByText(MARK).first().waitFor();
    await p.keyboard.press('Control+K');
    await p.getByRole('dialog', { name: 'Search' }).waitFor();
    await p.getByTestId('search-input').fill(MARK);
    await p.getByTestId('search-input').press('Enter');
    await p.getByRole('dialog', { name: 'Search' }).getByText(MARK).first().waitFor();
    await expectClean(p, 'search results');
    await screenshot(p, 'xss-search');
  }, 240_000);

  it('the public knowledge base shows the article as text, signed out', async () => {
    const p = await page(false);
    await p.goto(`${server.url}/support/kb/en?site=${site}`);
    await expectClean(p, 'the public knowledge base');
    await p.getByText(MARK).first().click();
    await expectClean(p, `the public article ${articleSlug}`);
  });

  it("a visitor's form and message, and the agent's live chat screens", async () => {
    // An agent signed in first, so the visitor can connect.
    const a = await page();
    const v = await page(false);
    await v.goto(`${server.url}/register/livechat/${liveToken}`);
    await v.getByRole('button', { name: 'Continue' }).click();
    await v.getByLabel('Name').fill(SHORT);
    await v.getByLabel('Phone').fill(SHORT);
    await v.getByLabel('Email').fill(SHORT);
    await v.getByLabel('Message').fill(LONG);
    await v.getByRole('button', { name: 'Connect' }).click();
    await v.getByText('Your queue number is 1').waitFor();
    await a.goto(`${server.url}/livechat`);
    await expectClean(a, 'the live chat queue');
    await a.getByTestId('banner-livechat').getByRole('button', { name: 'Take one' }).click();
    await a.waitForURL(/\/livechat\/\d+/);
    await expectClean(a, 'a live chat');
    await v.waitForURL(new RegExp(`/start/livechat/${liveToken}$`));
    await expectClean(v, 'the visitor page');
  });
});

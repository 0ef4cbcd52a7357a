import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  addAgent,
  apiJson,
  launchBrowser,
  newContext,
  type RunningServer,
  screenshot,
  seedWorkspace,
  signInAs,
  startServer,
} from './support.js';

/** Canned replies in the composer and macros with undo, in Chromium. */
describe('canned replies and macros in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  let admin: string;
  let agent: string;
  let billing: number;
  let macroId: number;
  const tickets: { id: number; ticket_number: number }[] = [];
  const contexts: BrowserContext[] = [];

  const info = async (id: number) =>
    (await apiJson(`${server.url}/ticket/info/me/${id}`, 'GET', undefined, admin)).data as {
      closed: number;
      severity: string;
      label: number[];
      assignee: string;
    };
  const state = async () =>
    Promise.all(
      tickets.map(async (t) => {
        const i = await info(t.id);
        return { closed: i.closed, severity: i.severity, label: i.label, assignee: i.assignee };
      }),
    );

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    admin = await seedWorkspace(server.url);
    agent = await addAgent(server.url, admin, 'bea', 'Bea Agent');
    const saved = await apiJson(
      `${server.url}/api/label/update`,
      'POST',
      {
        labelArray: [{ isNew: true, name: 'Billing', color: '#224488', colorDark: '#88AAFF', level: 0, sla: 30 }],
        delete: [],
      },
      admin,
    );
    billing = (saved.data as { id: number; name: string }[]).find((l) => l.name === 'Billing')!.id;
    for (const [title, name] of [
      ['Refund for order 1001', 'Carla Customer'],
      ['Where is my parcel', 'Dan Doe'],
      ['Invoice copy', 'Eve Example'],
    ])
      tickets.push((await apiJson(`${server.url}/api/ticket/create`, 'POST', { title, name }, admin)).data);
    for (const [shortcut, title, channels] of [
      ['hours', 'Opening hours', []],
      ['widget', 'Chat widget help', ['LIVECHAT']],
    ] as const)
      await apiJson(
        `${server.url}/api/replies/canned`,
        'POST',
        { title, shortcut, body: `${title}: see our help pages, {{customer.name}}.`, channels, shared: true },
        admin,
      );
    const macro = await apiJson(
      `${server.url}/api/macros`,
      'POST',
      {
        name: 'Billing follow-up',
        actions: [
          { type: 'status', status: 1 },
          { type: 'add_labels', labels: [billing] },
          { type: 'assignee', assignee: ['bea'] },
          { type: 'priority', priority: 'H' },
        ],
      },
      admin,
    );
    macroId = macro.data.id;
    await apiJson(
      `${server.url}/api/macros`,
      'POST',
      {
        name: 'Thank and resolve',
        actions: [
          { type: 'reply', text: 'Thanks {{customer.name}}, ticket #{{ticket.number}} is solved.' },
          { type: 'status', status: 2 },
        ],
      },
      admin,
    );
  }, 180_000);
  afterEach(async () => {
    for (const c of contexts.splice(0)) await c.close();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function page(user: 'ann' | 'bea', scheme: 'light' | 'dark' = 'light'): Promise<Page> {
    const ctx = await newContext(browser, scheme);
    contexts.push(ctx);
    const p = await ctx.newPage();
    p.on('pageerror', (e) => console.error(`[${user}] ${e.message}`));
    await signInAs(p, server.url, user);
    return p;
  }

  it('REPLIES an agent saves a canned reply, inserts it with / in the composer with the variables filled, and sends it', async () => {
    const p = await page('bea');
    await p.setViewportSize({ width: 1440, height: 900 });
    await p.goto(`${server.url}/settings/replies`);
    await p.getByTestId('canned-new').click();
    await p.getByTestId('canned-title').fill('Refund started');
    await p.getByTestId('canned-shortcut').fill('refund');
    // An unknown variable is refused with its name, and nothing is saved.
    await p.getByTestId('canned-body').fill('Hi {{customer.first}}');
    await p.getByTestId('canned-save').click();
    await expect.poll(() => p.getByTestId('canned-error').textContent()).toContain('{{customer.first}}');
    await p
      .getByTestId('canned-body')
      .fill('Hi {{customer.name}}, the refund for ticket #{{ticket.number}} is on its way. {{agent.name}}');
    await p.getByTestId('canned-save').click();
    await p.getByTestId('canned-row').filter({ hasText: 'Refund started' }).waitFor();
    expect(await p.getByTestId('canned-row').count()).toBe(3);

    const t = tickets[0]!;
    await p.goto(`${server.url}/ticket/${t.id}`);
    await p.getByTestId('conversation-pane').waitFor();
    const input = p.getByTestId('composer-input');
    await input.click();
    // A slash lists the replies offered on this ticket's channel: the live-chat-only one is left out.
    await input.pressSequentially('/');
    await p.getByTestId('canned-picker').waitFor();
    await expect
      .poll(() => p.getByTestId('canned-option').allTextContents())
      .toEqual([expect.stringContaining('/hours'), expect.stringContaining('/refund')]);
    await input.pressSequentially('ref');
    await p.getByTestId('canned-picker').waitFor();
    expect(await p.getByTestId('canned-option').count()).toBe(1);
    await screenshot(p, 'replies-picker-1440-light');
    await input.press('Enter');
    const filled = `Hi Carla Customer, the refund for ticket #${t.ticket_number} is on its way. Bea Agent`;
    await expect.poll(() => input.inputValue()).toBe(filled);
    expect(await p.getByTestId('canned-picker').count()).toBe(0);
    await input.press('Enter');
    await p.getByTestId('message-text').filter({ hasText: filled }).first().waitFor();
    // Stored as sent, by the agent (the message shows while it is still on its way: the outbox draws it at once).
    const stored = async () => {
      const data = await apiJson(`${server.url}/api/ticket/data3/${t.id}/0`, 'GET', undefined, admin);
      return (data.data as { message: string; sender: string }[]).some(
        (m) => m.message === filled && m.sender === 'bea',
      );
    };
    await expect.poll(stored, { timeout: 20_000 }).toBe(true);
    // A slash inside a word opens nothing.
    await input.fill('');
    await input.pressSequentially('and/or');
    expect(await p.getByTestId('canned-picker').count()).toBe(0);
  }, 240_000);

  it('MACROS a macro runs on three tickets and is undone; on the open ticket from the Run macro menu with the toast Undo', async () => {
    const before = await state();
    // Three tickets at once (the list's bulk bar will call the same).
    const run = await apiJson(
      `${server.url}/api/macros/${macroId}/run`,
      'POST',
      { ticket_ids: tickets.map((t) => t.id) },
      agent,
    );
    expect(run.description).toBe('Macro applied to 3 tickets.');
    for (const s of await state()) expect(s).toEqual({ closed: 1, severity: 'H', label: [billing], assignee: 'bea' });
    await apiJson(`${server.url}/api/macros/runs/${run.data.run_id}/undo`, 'POST', undefined, agent);
    expect(await state()).toEqual(before);

    // One click on the open ticket, then Undo in the toast.
    const p = await page('bea');
    await p.setViewportSize({ width: 1440, height: 900 });
    const t = tickets[1]!;
    await p.goto(`${server.url}/ticket/${t.id}`);
    await p.getByTestId('conversation-pane').waitFor();
    await p.getByTestId('macro-menu').click();
    await p.getByTestId('macro-item').filter({ hasText: 'Billing follow-up' }).click();
    await p.getByTestId('macro-toast').waitFor();
    await expect.poll(async () => (await info(t.id)).severity).toBe('H');
    expect(await info(t.id)).toMatchObject({ closed: 1, label: [billing], assignee: 'bea' });
    // The system messages of the changes show in the conversation, as for a change by hand.
    await p.getByText('Bea Agent set the status to Pending.').first().waitFor();
    await screenshot(p, 'replies-macro-toast-1440-light');
    await p.getByTestId('macro-undo').click();
    await expect.poll(async () => (await info(t.id)).severity).toBe(before[1]!.severity);
    expect((await state())[1]).toEqual(before[1]);

    // A macro that sends a reply: the undo says the reply stays.
    await p.getByTestId('macro-menu').click();
    await p.getByTestId('macro-item').filter({ hasText: 'Thank and resolve' }).click();
    await p.getByTestId('message-text').filter({ hasText: 'Thanks Dan Doe' }).first().waitFor();
    await p.getByTestId('macro-undo').click();
    await p.getByText('Macro undone. The reply it sent stays: a sent reply cannot be unsent.').waitFor();
    await expect.poll(async () => (await info(t.id)).closed).toBe(before[1]!.closed);
  }, 240_000);

  it("MACROS the ticket list's bulk bar runs a macro on three ticked tickets, and the toast's Undo puts them back", async () => {
    const before = await state();
    const p = await page('ann');
    await p.setViewportSize({ width: 1440, height: 900 });
    await p.goto(`${server.url}/ticket`);
    const row = (title: string) => p.getByTestId('ticket-row').filter({ hasText: title });
    for (const title of ['Refund for order 1001', 'Where is my parcel', 'Invoice copy']) {
      await row(title).waitFor();
      await row(title).getByRole('checkbox').check();
    }
    await p.getByTestId('macro-menu').click();
    await p.getByTestId('macro-item').filter({ hasText: 'Billing follow-up' }).click();
    await p.getByTestId('macro-toast').waitFor();
    await expect.poll(async () => (await state()).map((s) => s.severity)).toEqual(['H', 'H', 'H']);
    for (const s of await state()) expect(s).toEqual({ closed: 1, severity: 'H', label: [billing], assignee: 'bea' });
    await screenshot(p, 'replies-bulk-macro-1440-light');
    await p.getByTestId('macro-undo').click();
    await expect.poll(state).toEqual(before);
  }, 240_000);

  it('REPLIES MACROS the settings screens and the picker at 1440 and 390x844, light and dark', async () => {
    for (const scheme of ['light', 'dark'] as const) {
      const p = await page('ann', scheme);
      for (const [w, h] of [
        [1440, 900],
        [390, 844],
      ] as const) {
        await p.setViewportSize({ width: w, height: h });
        await p.goto(`${server.url}/settings/replies`);
        await p.getByTestId('canned-card').waitFor();
        await screenshot(p, `replies-settings-canned-${w}-${scheme}`);
        await p.goto(`${server.url}/settings/macros`);
        await p.getByTestId('macro-row').first().waitFor();
        await screenshot(p, `replies-settings-macros-${w}-${scheme}`);
        await p.getByRole('button', { name: 'Edit Billing follow-up' }).click();
        await p.getByTestId('macro-action').first().waitFor();
        await screenshot(p, `replies-macro-form-${w}-${scheme}`);
        await p.keyboard.press('Escape');
        await p.goto(`${server.url}/ticket/${tickets[2]!.id}`);
        await p.getByTestId('conversation-pane').waitFor();
        const input = p.getByTestId('composer-input');
        await input.click();
        await input.pressSequentially('/');
        await p.getByTestId('canned-picker').waitFor();
        await screenshot(p, `replies-picker-${w}-${scheme}`);
      }
    }
  }, 400_000);
});

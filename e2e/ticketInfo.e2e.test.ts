import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  animationsSettled,
  apiJson,
  axe,
  modalSettled,
  type RunningServer,
  screenshot,
  startDemo,
  waitConnected,
} from './support.js';

/*
 * SHELL-31 (design): the info panel beside a ticket's conversation. Every change made there goes through the
 * ticket's own call, so it posts its system message (TICKET-27) and reaches a second agent's screen live.
 */
describe('the ticket info panel in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  let password = '';
  let admin = '';

  beforeAll(async () => {
    ({ server, browser, password } = await startDemo({ tickets: 40 }));
    admin = (await apiJson(`${server.url}/api/auth2`, 'POST', { client: 'demo-admin', password })).token;
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function open(username: string, width: number, height: number, scheme: 'light' | 'dark' = 'light') {
    const ctx = await browser.newContext({ viewport: { width, height }, colorScheme: scheme });
    const page = await ctx.newPage();
    await page.goto(server.url);
    await page.getByLabel('Username', { exact: true }).fill(username);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('welcome').waitFor();
    await waitConnected(page);
    return { ctx, page };
  }
  /** An open e-mail ticket of the demo with a customer name, without labels or assignees. */
  async function aTicket() {
    const list = await apiJson(`${server.url}/api/ticket/load/me/0/ticket/0`, 'GET', undefined, admin);
    const t = (
      list.data as {
        id: number;
        name: string;
        channel: string;
        label: number[];
        assignee: string;
        department_id: number | null;
      }[]
    ).find((x) => x.name && x.label.length === 0 && x.assignee === '');
    expect(t, 'a ticket to work on').toBeDefined();
    return t!;
  }
  const info = async (id: number) =>
    (await apiJson(`${server.url}/ticket/info/me/${id}`, 'GET', undefined, admin)).data;
  /** Picks an option of a Mantine Select or MultiSelect in the panel. */
  async function pick(page: Page, testId: string, option: string) {
    await page.getByTestId(testId).click();
    await page.getByRole('option', { name: option, exact: true }).click();
  }

  it('SHELL-31 TICKET-27 TICKET-36 TICKET-51 status, priority, assignee, label and department from the panel, live on a second screen', async () => {
    const t = await aTicket();
    const a = await open('demo-admin', 1600, 900);
    const b = await open('demo-agent1', 1600, 900, 'dark');
    for (const p of [a.page, b.page]) {
      await p.goto(`${server.url}/ticket/${t.id}`);
      await p.getByTestId('ticket-info').waitFor();
    }
    // The header names the ticket; the panel (open by default where all three columns fit) its customer.
    await expect.poll(() => a.page.getByTestId('ticket-header').textContent()).toContain(`#`);
    expect(await a.page.getByTestId('ticket-info-customer').textContent()).toBe(t.name);
    expect(await a.page.getByTestId('ticket-row').count()).toBeGreaterThan(0);

    await pick(a.page, 'ticket-info-status', 'Pending');
    await a.page.getByText('Dana Admin set the status to Pending.').waitFor();
    await expect.poll(() => b.page.getByTestId('ticket-info-status').inputValue()).toBe('Pending');
    await b.page.getByText('Dana Admin set the status to Pending.').waitFor();

    await pick(a.page, 'ticket-info-priority', 'High');
    await expect.poll(() => b.page.getByTestId('ticket-info-priority').inputValue()).toBe('High');

    await pick(a.page, 'ticket-info-assignees', 'Alex Agent (demo-agent1)');
    await a.page.keyboard.press('Escape');
    await expect.poll(async () => (await info(t.id)).assignee).toBe('demo-agent1');
    await expect
      .poll(() => b.page.getByTestId('ticket-info-assignees-field').locator('.mantine-Pill-label').allTextContents())
      .toEqual(['Alex Agent (demo-agent1)']);

    await pick(a.page, 'ticket-info-labels', 'Urgent');
    await a.page.keyboard.press('Escape');
    const departments = (await apiJson(`${server.url}/api/departments`, 'GET', undefined, admin)).data as {
      id: number;
      name: string;
    }[];
    const other = departments.find((d) => d.id !== t.department_id)!;
    await pick(a.page, 'ticket-info-department', other.name);
    await expect.poll(async () => (await info(t.id)).department_id).toBe(other.id);
    const after = await info(t.id);
    expect(after).toMatchObject({ closed: 1, severity: 'H', assignee: 'demo-agent1' });
    expect(after.label).toHaveLength(1);
    await expect
      .poll(() => b.page.getByTestId('ticket-info-labels-field').locator('.mantine-Pill-label').allTextContents())
      .toEqual(['Urgent']);
    await expect.poll(() => b.page.getByTestId('ticket-info-department').inputValue()).toBe(other.name);
    await a.page.getByText(`Dana Admin moved the ticket to ${other.name}.`).waitFor();
    await screenshot(a.page, 'ticket-info-light');
    await screenshot(b.page, 'ticket-info-dark');

    // Taking the label and the assignee off again.
    await a.page.getByTestId('ticket-info-labels-field').locator('.mantine-Pill-remove').first().click();
    await expect.poll(async () => (await info(t.id)).label).toEqual([]);
    await expect
      .poll(() => b.page.getByTestId('ticket-info-labels-field').locator('.mantine-Pill-label').count())
      .toBe(0);
    await a.ctx.close();
    await b.ctx.close();
  });

  it('SHELL-31 SHELL-26 the panel: closed by default on a 1280 px screen (after the loading animation), kept as chosen, a drawer on a narrow one; axe light and dark', async () => {
    const list = await apiJson(`${server.url}/api/ticket/load/me/0/ticket/0`, 'GET', undefined, admin);
    const t = list.data[0] as { id: number };
    const { ctx, page } = await open('demo-agent2', 1280, 800);
    // SHELL-26: while the history loads, the conversation shows a loading animation.
    let release = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    await page.route(`**/ticket/data/${t.id}/**`, async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(`${server.url}/ticket/${t.id}`);
    await page.getByTestId('ticket-header').waitFor();
    await page.getByRole('progressbar', { name: 'Loading' }).or(page.getByLabel('Loading')).first().waitFor();
    expect(await page.getByTestId('conversation-pane').count()).toBe(0);
    release();
    await page.getByTestId('conversation-pane').waitFor();
    await page.unroute(`**/ticket/data/${t.id}/**`);
    expect(await page.getByTestId('ticket-info').count()).toBe(0);
    await expect.poll(() => page.getByTestId('ticket-row').first().isVisible()).toBe(true);
    await page.getByTestId('ticket-info-toggle').click();
    await page.getByTestId('ticket-info').waitFor();
    expect(await page.getByTestId('ticket-info-toggle').getAttribute('aria-pressed')).toBe('true');
    // The list gives way to the panel at this width, and the choice outlives a reload.
    await expect.poll(() => page.getByTestId('ticket-row').first().isVisible()).toBe(false);
    await page.reload();
    await page.getByTestId('ticket-info-status').waitFor();
    const violations: string[] = [];
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await animationsSettled(page);
      violations.push(...(await axe(page, '[data-testid="ticket-info"]')).map((v) => `${scheme} panel ${v}`));
    }
    await page.getByRole('button', { name: 'Close details' }).click();
    await expect.poll(() => page.getByTestId('ticket-info').count()).toBe(0);

    // Narrow: the toggle opens a drawer titled Details.
    await page.setViewportSize({ width: 420, height: 800 });
    // The narrow layout is drawn (its navigation button shows) before the toggle is pressed, so the press
    // opens the drawer rather than the wide panel of the layout being replaced.
    await page.getByRole('button', { name: 'Open navigation' }).waitFor();
    await page.getByTestId('ticket-info-toggle').click();
    const drawer = page.getByRole('dialog', { name: 'Details' });
    await drawer.getByTestId('ticket-info-status').waitFor();
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await modalSettled(page); // colours are checked as painted, after the transition
      await animationsSettled(page);
      violations.push(...(await axe(page, '[role="dialog"]')).map((v) => `${scheme} drawer ${v}`));
      await screenshot(page, `ticket-info-drawer-${scheme}`);
    }
    expect(violations).toEqual([]);
    await ctx.close();
  });
});

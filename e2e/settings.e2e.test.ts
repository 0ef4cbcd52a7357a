import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  animationsSettled,
  apiJson,
  axe,
  launchBrowser,
  modalSettled,
  newContext,
  type RunningServer,
  screenshot,
  seedWorkspace,
  signInAs,
  startServer,
} from './support.js';

describe('settings in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  let adminToken = '';
  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    adminToken = await seedWorkspace(server.url, [{ username: 'bob', name: 'Bob Agent' }]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('AUTH-18 TICKET-55 an admin adds a department and puts an agent in it', async () => {
    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    await signInAs(page, server.url, 'ann');
    await page.goto(`${server.url}/settings/departments`);
    await page.getByLabel('New department').fill('Billing');
    await page.getByRole('button', { name: 'Add department' }).click();
    await page.getByTestId('department-row').filter({ hasText: 'Billing' }).waitFor();
    await page.getByLabel('New department').fill('billing');
    await page.getByRole('button', { name: 'Add department' }).click();
    await page.getByText('A department with that name already exists.').waitFor();
    expect(await page.getByTestId('department-row').count()).toBe(1);

    await page.goto(`${server.url}/settings/users`);
    const bob = page.getByTestId('user-row').filter({ hasText: 'Bob Agent' });
    await bob.getByRole('button', { name: 'Edit' }).click();
    // The departments may still be loading when the dialog opens (seen in CI): open the list until it has one.
    const billing = page.getByRole('option', { name: 'Billing' });
    await expect
      .poll(
        async () => {
          if (await billing.isVisible()) return true;
          await page.getByRole('dialog').getByLabel('Departments').click({ force: true });
          return billing.isVisible();
        },
        { timeout: 20_000, interval: 1_000 },
      )
      .toBe(true);
    await billing.click();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => bob.getByTestId('user-departments').textContent()).toBe('Billing');
    await screenshot(page, 'settings-users-departments');
    await ctx.close();
  });

  it('LABEL-01 LABEL-04 LABEL-05 LABEL-07 LABEL-10 LABEL-11 LABEL-14 LABEL-18 an admin edits labels; bad input is refused', async () => {
    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    await signInAs(page, server.url, 'ann');
    await page.goto(`${server.url}/settings/labels`);
    await page.getByRole('button', { name: 'Add label' }).click();
    const name = page.getByLabel('Name').last();
    expect(await name.inputValue()).toBe('New Label');
    expect(await page.getByLabel('Color', { exact: true }).last().inputValue()).toBe('#000000');
    // Bad rows are refused before anything is sent.
    await name.fill('');
    await page.getByRole('button', { name: 'Save' }).first().click();
    await page.getByText('Please check all the fields are not empty.').waitFor();
    await name.fill('Urgent');
    await page.getByLabel('Level').last().fill('1.5');
    await page.getByRole('button', { name: 'Save' }).first().click();
    await page.getByText('Priority level and SLA must be whole number.').waitFor();
    expect(await page.getByText('Please check the input.').count()).toBe(1);
    await page.getByLabel('Level').last().fill('2');
    await page.getByLabel('Color', { exact: true }).last().fill('#FF0000');
    await page.getByLabel('Color', { exact: true }).last().blur();
    await page.getByRole('button', { name: 'Save' }).first().click();
    await page.getByText('Label updated.').waitFor();
    const labels = await (
      await fetch(`${server.url}/api/label/get`, {
        headers: { cookie: (await ctx.cookies()).map((c) => `${c.name}=${c.value}`).join('; ') },
      })
    ).json();
    expect(labels.data.map((l: { name: string; color: string; level: number }) => [l.name, l.color, l.level])).toEqual([
      ['Urgent', '#FF0000', 2],
    ]);

    await page.getByLabel('Days until a Resolved ticket closes').fill('7');
    await page.getByRole('button', { name: 'Save' }).last().click();
    await page.getByText('Settings updated').waitFor();
    await screenshot(page, 'settings-labels');
    await ctx.close();
  });

  it('LABEL-06 a colour typed as "#12" shows "Color format is not correct" on save and is kept, not put back', async () => {
    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    await signInAs(page, server.url, 'ann');
    const cookie = (await ctx.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    const stored = async () =>
      (await (await fetch(`${server.url}/api/label/get`, { headers: { cookie } })).json()).data.map(
        (l: { name: string; color: string; colorDark: string }) => [l.name, l.color, l.colorDark],
      );
    const before = await stored();
    await page.goto(`${server.url}/settings/labels`);
    await page.getByRole('button', { name: 'Add label' }).click();
    await page.getByLabel('Name').last().fill('Bad colour');
    for (const which of ['Color', 'Dark color']) {
      const input = page.getByLabel(which, { exact: true }).last();
      await input.fill('#12');
      // Save takes the focus away from the input: the typed value must stay for the check to see it.
      await page.getByRole('button', { name: 'Save' }).first().click();
      await page.getByText('Color format is not correct').waitFor();
      expect(await input.inputValue()).toBe('#12');
      await input.fill(which === 'Color' ? '#000000' : '#FFFFFF');
      await input.blur();
    }
    expect(await stored()).toEqual(before);
    await ctx.close();
  });

  it('SHELL-42 SHELL-43 SHELL-48 SHELL-37 the generic input dialog publishes announcements: list rows, option and button kinds, the extra button', async () => {
    for (const scheme of ['light', 'dark'] as const) {
      const ctx = await newContext(browser, scheme);
      const page = await ctx.newPage();
      await signInAs(page, server.url, 'ann');
      await page.goto(`${server.url}/settings/announcements`);
      await page.getByRole('button', { name: 'New announcement' }).click();
      const dialog = page.getByRole('dialog', { name: 'New announcement' });
      await dialog.waitFor();
      // Nothing showing yet: no list rows and no Remove current; the level buttons are the answer, no OK.
      expect(await dialog.getByRole('table').count()).toBe(0);
      expect(await dialog.getByRole('button', { name: 'Remove current' }).count()).toBe(0);
      expect(await dialog.getByRole('button', { name: 'OK' }).count()).toBe(0);
      expect(await dialog.getByRole('group', { name: 'Publish as' }).getByRole('button').allTextContents()).toEqual([
        'Information',
        'Warning',
      ]);
      const until = dialog.getByRole('radiogroup', { name: 'Show until' });
      expect(await until.getByRole('radio').count()).toBe(4);
      expect(await until.getByRole('radio', { name: 'Removed or replaced' }).isChecked()).toBe(true);
      // Required: the dialog names what is missing and sends nothing.
      await dialog.getByRole('button', { name: 'Warning' }).click();
      await dialog.getByRole('alert').getByText('Message: This cannot be empty.').waitFor();
      // The server's answer shows in the same place (blank is not a message).
      await dialog.getByLabel('Message').fill('   ');
      await dialog.getByRole('button', { name: 'Warning' }).click();
      await dialog.getByRole('alert').getByText('Message is required.').waitFor();
      await page.mouse.move(0, 0);
      await modalSettled(page);
      await animationsSettled(page, '[role="dialog"]'); // the hover just left fades out
      await screenshot(page, `settings-announcement-dialog-${scheme}`);
      expect(await axe(page, '.mantine-Modal-content')).toEqual([]);

      // A warning for one hour: the option kind sets the expiry, the button kind the level, and submits.
      await dialog.getByLabel('Message').fill(`Printer on fire (${scheme})`);
      await until.getByRole('radio', { name: 'One hour from now' }).check();
      const before = Date.now();
      await dialog.getByRole('button', { name: 'Warning' }).click();
      await dialog.waitFor({ state: 'detached' });
      await page.getByTestId('current-announcement').getByText(`Printer on fire (${scheme})`).waitFor();
      let current = (await apiJson(`${server.url}/api/announcement`, 'GET', undefined, adminToken)).announcement;
      expect(current.level).toBe('warning');
      expect(current.expires_at).toBeGreaterThanOrEqual(before + 3_600_000 - 1_000);
      expect(current.expires_at).toBeLessThan(Date.now() + 3_600_000 + 1_000);

      // Again: the one showing now is in the list rows; Enter picks the first button (Information), no expiry.
      await page.getByRole('button', { name: 'New announcement' }).click();
      await dialog.waitFor();
      const rows = (await dialog.getByRole('row').allTextContents()).map((r) => r.trim());
      expect(rows[0]).toBe(`Showing now${`Printer on fire (${scheme})`}`);
      expect(rows[1]).toMatch(/^Show until\d{1,2}\/\d{1,2}\/\d{4} \d{2}:\d{2}$/);
      await modalSettled(page);
      expect(await axe(page, '.mantine-Modal-content')).toEqual([]);
      await dialog.getByLabel('Message').fill('Lunch is served');
      await dialog.getByLabel('Message').press('Enter');
      await dialog.waitFor({ state: 'detached' });
      await page.getByTestId('current-announcement').getByText('Lunch is served').waitFor();
      current = (await apiJson(`${server.url}/api/announcement`, 'GET', undefined, adminToken)).announcement;
      expect([current.level, current.expires_at]).toEqual(['info', null]);

      // The extra button removes the one showing, from the dialog.
      await page.getByRole('button', { name: 'New announcement' }).click();
      await dialog.getByRole('button', { name: 'Remove current' }).click();
      await dialog.waitFor({ state: 'detached' });
      await page.getByTestId('current-announcement').waitFor({ state: 'detached' });
      expect((await apiJson(`${server.url}/api/announcement`, 'GET', undefined, adminToken)).announcement).toBe(null);
      await ctx.close();
    }
  });

  it('SHELL-51 SHELL-52 the audit log pages with the pager: first, previous, a window of 5 with ellipses, next, last', async () => {
    // 210 entries more (a custom status added and removed is two), over 9 pages of 25.
    for (let i = 0; i < 105; i++) {
      const made = await apiJson(`${server.url}/api/customstatus`, 'POST', { name: `Tmp ${i}` }, adminToken);
      await apiJson(`${server.url}/api/customstatus/${made.data.id}`, 'DELETE', undefined, adminToken);
    }
    const ctx = await newContext(browser, 'dark');
    const page = await ctx.newPage();
    await signInAs(page, server.url, 'ann'); // a sign-in is an entry too
    const total = (await apiJson(`${server.url}/api/audit?limit=1&page=1`, 'GET', undefined, adminToken)).count;
    const pages = Math.ceil(total / 25);
    expect(pages).toBeGreaterThanOrEqual(9);
    await page.goto(`${server.url}/settings/audit`);
    const pager = page.getByRole('navigation', { name: 'Pagination' });
    await pager.waitFor();
    expect(await page.getByTestId('audit-total').textContent()).toBe(`${total} entries`);
    /** The pager as read: page numbers, "…" for a gap, the current page in brackets. */
    const slots = async () =>
      (
        await pager
          .locator('button:not([aria-label$=" page"]), p')
          .evaluateAll((els) =>
            els.map((e) => (e.getAttribute('aria-current') ? `[${e.textContent}]` : (e.textContent ?? '').trim())),
          )
      ).join(' ');
    const button = (name: string) => pager.getByRole('button', { name, exact: true });
    // The action's code rides on its cell; the cell itself reads as a sentence.
    const firstAction = () => page.getByTestId('audit-row').first().locator('td').nth(2).getAttribute('data-action');

    expect(await slots()).toBe(`[1] 2 3 4 5 … ${pages}`);
    expect(await button('First page').isDisabled()).toBe(true);
    expect(await button('Previous page').isDisabled()).toBe(true);
    expect(await page.getByTestId('audit-row').count()).toBe(25);
    expect(await firstAction()).toBe('signin.succeeded'); // newest first: this sign-in
    // Who and what in words: the display name, a sentence, never the event's code or raw JSON.
    const first = page.getByTestId('audit-row').first();
    expect(await first.locator('td').nth(1).textContent()).toBe('Ann Admin');
    expect(await first.locator('td').nth(2).textContent()).toBe('Ann Admin signed in');
    const statusRow = page.getByTestId('audit-row').nth(1);
    expect(await statusRow.locator('td').nth(2).textContent()).toBe('Ann Admin deleted a custom status');
    expect(await page.getByTestId('audit-row').allTextContents()).not.toContainEqual(
      expect.stringMatching(/[{}]|\.succeeded|custom_/),
    );
    await screenshot(page, 'settings-audit-pager-dark');

    await button('Next page').click();
    await expect.poll(slots).toBe(`1 [2] 3 4 5 … ${pages}`);
    await button('Page 5').click();
    await expect.poll(slots).toBe(`1 … 3 4 [5] 6 7 … ${pages}`);
    await button('Previous page').click();
    await expect.poll(slots).toBe(`1 2 3 [4] 5 6 … ${pages}`);
    await button('Last page').click();
    await expect.poll(slots).toBe(`1 … ${pages - 4} ${pages - 3} ${pages - 2} ${pages - 1} [${pages}]`);
    await expect.poll(() => page.getByTestId('audit-row').count()).toBe(total - (pages - 1) * 25);
    // The last page holds the oldest entries (compared with the server's own page below); what they are
    // depends on what the earlier tests of this file did, sign-ins included.
    expect(await button('Next page').isDisabled()).toBe(true);
    expect(await button('Last page').isDisabled()).toBe(true);
    // The oldest entries, as the server pages them.
    const last = await apiJson(`${server.url}/api/audit?limit=25&page=${pages}`, 'GET', undefined, adminToken);
    const shown = await page
      .getByTestId('audit-row')
      .evaluateAll((rows) => rows.map((r) => r.children[2]?.getAttribute('data-action')));
    expect(shown).toEqual(last.data.map((r: { action: string }) => r.action));
    // Dates shown read D/M/YYYY, the moment's time with seconds.
    expect(await page.getByTestId('audit-row').first().locator('td').first().textContent()).toMatch(
      /^\d{1,2}\/\d{1,2}\/\d{4} \d{2}:\d{2}:\d{2}$/,
    );
    expect(await axe(page)).toEqual([]);
    await button('First page').click();
    await expect.poll(slots).toBe(`[1] 2 3 4 5 … ${pages}`);
    await ctx.close();
  });
});

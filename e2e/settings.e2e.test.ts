import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  launchBrowser,
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
  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    await seedWorkspace(server.url, [{ username: 'bob', name: 'Bob Agent' }]);
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
    // Bad rows are refused before anything is sent (the colour pickers only take valid colours).
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
});

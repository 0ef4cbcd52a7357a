import path from 'node:path';
import Database from 'better-sqlite3';
import type { Browser, Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiJson,
  artifacts,
  launchBrowser,
  newContext,
  PASSWORD,
  type RunningServer,
  screenshot,
  seedWorkspace,
  signInAs,
  startServer,
} from './support.js';

const NOT_IMAGE = 'The profile picture must be an image: PNG, JPEG, GIF or WebP.';

/** A loaded machine is slow to paint: wait up to 15 s for a state. */
const WAIT = { timeout: 15_000 };

/** PROFILE-16: a user changes their profile picture in settings; the nav avatar and the profile modal show it. */
describe('profile picture in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  let ticketId = 0;
  let png: Buffer;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer().catch(() => startServer()), launchBrowser()]);
    const admin = await seedWorkspace(server.url, [{ username: 'bob', name: 'Bo Agent' }]);
    const { accountId } = await apiJson(`${server.url}/api/auth/check`, 'POST', {}, admin);
    const db = new Database(path.join(server.dataDir, 'parley.db'));
    db.pragma('busy_timeout = 5000');
    const now = Date.now();
    ticketId = (
      db
        .prepare(
          `insert into tickets (account_id, ticket_number, title, channel, closed, priority, label, department_id,
             assignee, name, email, phone, created_at, updated_at)
           values (?, 1, 'Broken kettle', 'EMAIL', 0, '', '[]', null, 'bob', 'Pat Lee', 'pat@example.net', '', ?, ?)
           returning id`,
        )
        .get(accountId, now, now) as { id: number }
    ).id;
    db.close();
    const bo = (await apiJson(`${server.url}/api/auth2`, 'POST', { client: 'bob', password: PASSWORD })).token;
    await apiJson(
      `${server.url}/api/ticket/message`,
      'POST',
      { ticket_id: ticketId, message: 'On it', type: 'text' },
      bo,
    );
    png = await sharp({ create: { width: 400, height: 400, channels: 3, background: '#e8590c' } })
      .composite([
        {
          input: await sharp({ create: { width: 200, height: 200, channels: 3, background: '#1c7ed6' } })
            .png()
            .toBuffer(),
          left: 100,
          top: 100,
        },
      ])
      .png()
      .toBuffer();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  /** The `src` of the image inside a Mantine Avatar once it has loaded, else null. */
  const loadedSrc = (page: Page, selector: string) =>
    page.evaluate((sel) => {
      const img = document.querySelector<HTMLImageElement>(`${sel} img`);
      return img?.complete && img.naturalWidth > 0 ? img.getAttribute('src') : null;
    }, selector);

  it('PROFILE-15 PROFILE-16 an agent uploads a PNG in settings: the nav avatar and the profile modal show it; a non-image is refused', async () => {
    const ctx = await newContext(browser, 'light');
    const page = await ctx.newPage();
    page.on('pageerror', (e) => console.error(e.message));
    await signInAs(page, server.url, 'bob');
    expect(await page.locator('[data-testid="user-menu"] img').count()).toBe(0);
    await page.goto(`${server.url}/settings`);
    const card = page.getByTestId('profile-photo-card');
    await card.getByText('Profile picture').waitFor();
    const input = card.locator('input[type="file"]');

    // A PDF named like a picture: the browser declares it application/pdf, the card says so and sends nothing.
    await input.setInputFiles({ name: 'me.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4\n') });
    await card.getByRole('alert').filter({ hasText: NOT_IMAGE }).waitFor();
    // Text that claims to be a PNG: only the server's look at the bytes can tell; same clear message.
    const refused = page.waitForResponse((r) => r.url().endsWith('/api/user/photo'));
    await input.setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: Buffer.from('not a picture at all') });
    expect((await refused).status()).toBe(400);
    await expect.poll(() => card.getByRole('alert').textContent(), WAIT).toBe(NOT_IMAGE);
    expect(await page.locator('[data-testid="user-menu"] img').count()).toBe(0);
    await screenshot(page, 'profile-photo-error-light');

    await input.setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: png });
    await card.getByText('Your profile picture was changed.').waitFor();
    await expect
      .poll(() => loadedSrc(page, '[data-testid="user-menu"]'), WAIT)
      .toMatch(/^\/files\/[A-Za-z0-9_-]+\/thumb\.jpg$/);
    const src = await loadedSrc(page, '[data-testid="user-menu"]');
    await expect.poll(() => loadedSrc(page, '[data-testid="profile-photo-preview"]'), WAIT).toBe(src);
    const check = await page.evaluate(() =>
      fetch('/api/auth/check', { method: 'POST', credentials: 'include' }).then((r) => r.json()),
    );
    expect(check.photo).toBe(src);
    await card.screenshot({ path: path.join(artifacts, 'profile-photo-card-light.png') });

    // Dark theme: the same card.
    const dark = await newContext(browser, 'dark');
    const dpage = await dark.newPage();
    await signInAs(dpage, server.url, 'bob');
    await dpage.goto(`${server.url}/settings`);
    await expect.poll(() => loadedSrc(dpage, '[data-testid="profile-photo-preview"]'), WAIT).toBe(src);
    await dpage
      .getByTestId('profile-photo-card')
      .screenshot({ path: path.join(artifacts, 'profile-photo-card-dark.png') });
    await dark.close();

    // A colleague sees it in the profile modal, opened from Bo's message.
    const actx = await newContext(browser, 'light');
    const apage = await actx.newPage();
    await signInAs(apage, server.url, 'ann');
    await apage.goto(`${server.url}/ticket/${ticketId}`);
    await apage.getByTestId('conversation-pane').waitFor();
    await apage.getByTestId('message-sender').filter({ hasText: 'Bo Agent' }).last().click();
    const modal = apage.getByRole('dialog', { name: 'Profile' });
    await modal.getByTestId('profile-name').waitFor();
    await expect.poll(() => loadedSrc(apage, '[data-testid="profile-avatar"]'), WAIT).toBe(src);
    await screenshot(apage, 'profile-photo-modal-light');
    await actx.close();

    // Remove: back to initials.
    await card.getByRole('button', { name: 'Remove picture' }).click();
    await card.getByText('Your profile picture was removed.').waitFor();
    await expect.poll(() => page.locator('[data-testid="user-menu"] img').count(), WAIT).toBe(0);
    await ctx.close();
  }, 180_000);
});

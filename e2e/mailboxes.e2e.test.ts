import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { EMAIL_STRINGS } from '@parley/contracts';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { SMTPServer } from 'smtp-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Dovecot, hasDovecot, rawMail, startDovecot } from '../apps/server/src/testing/dovecot.js';
import {
  apiJson,
  axe,
  launchBrowser,
  modalSettled,
  type RunningServer,
  screenshot,
  seedWorkspace,
  signInAs,
  startServer,
  waitConnected,
} from './support.js';

const BOX = 'help@acme.test';
/** The second test's own mailbox, so it does not hang on the first's. */
const DESK = 'desk@acme.test';
const SMTP_PASSWORD = 'smtp secret';

/** An SMTP server on loopback that takes only the login `SMTP_PASSWORD`, refusing others in its own words. */
async function smtpWithLogin() {
  const server = new SMTPServer({
    authOptional: false,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    onAuth(auth, _session, done) {
      if (auth.password === SMTP_PASSWORD) return done(null, { user: auth.username });
      done(Object.assign(new Error('5.7.8 Bad credentials, try again'), { responseCode: 535 }));
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return { port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/**
 * Settings -> Mailboxes in Chromium against a real Dovecot and a loopback SMTP server: an admin connects a
 * mailbox, tests it, and its mail becomes a ticket in the open list; the form's write-only passwords; the
 * server without SECRETS_KEY.
 */
describe.skipIf(!hasDovecot)('Settings -> Mailboxes in Chromium', () => {
  let server: RunningServer;
  let bare: RunningServer;
  let browser: Browser;
  let dovecot: Dovecot;
  let smtp: Awaited<ReturnType<typeof smtpWithLogin>>;
  let admin = '';
  let bareAdmin = '';
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    [dovecot, smtp, browser] = await Promise.all([startDovecot([BOX, DESK]), smtpWithLogin(), launchBrowser()]);
    // A poll once a minute: a mail that shows sooner came by IMAP IDLE.
    [server, bare] = await Promise.all([
      // The inbound listener on (a free port): each row shows its forwarding address.
      startServer({
        SECRETS_KEY: randomBytes(32).toString('base64'),
        EMAIL_POLL_MS: '60000',
        INBOUND_SMTP_PORT: '0',
        INBOUND_SMTP_DOMAIN: 'in.parley.test',
      }),
      startServer(),
    ]);
    [admin, bareAdmin] = await Promise.all([seedWorkspace(server.url), seedWorkspace(bare.url)]);
    await apiJson(`${server.url}/api/departments`, 'POST', { name: 'Support' }, admin);
  }, 120_000);
  afterEach(async () => {
    for (const c of contexts.splice(0)) await c.close();
  });
  afterAll(async () => {
    await browser?.close();
    await Promise.all([server?.stop(), bare?.stop()]);
    await dovecot?.stop();
    await smtp?.close();
  });

  async function open(
    s: RunningServer,
    o: { scheme: 'light' | 'dark'; width: number; height: number },
  ): Promise<{ page: Page; failed: string[] }> {
    const ctx = await browser.newContext({
      viewport: { width: o.width, height: o.height },
      colorScheme: o.scheme,
      ...(o.width < 500 ? { isMobile: true, hasTouch: true } : {}),
    });
    contexts.push(ctx);
    // A dark page is asked for through the app's own cookie (the OS scheme only sets the default).
    if (o.scheme === 'dark') await ctx.addCookies([{ name: 'dark', value: '1', url: s.url }]);
    const page = await ctx.newPage();
    const failed: string[] = [];
    page.on('response', (r) => {
      if (r.url().includes('/api/') && r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
    });
    await signInAs(page, s.url, 'ann');
    await page.goto(`${s.url}/settings/mailboxes`);
    await page.getByTestId('mailbox-limit').waitFor();
    return { page, failed };
  }
  const field = (page: Page, group: 'mailbox-imap' | 'mailbox-smtp', label: string) =>
    page.getByTestId(group).getByLabel(label, { exact: true });
  const mailboxes = async (s: RunningServer, token: string, address?: string) =>
    (
      (await apiJson(`${s.url}/api/mailboxes`, 'GET', undefined, token)).data as {
        id: number;
        address: string;
        name: string;
        active: boolean;
        kind: string;
        lastError: string | null;
      }[]
    ).filter((m) => !address || m.address === address);

  it('PLAN-19 PLAN-20 MSG-30 an admin adds a mailbox on Dovecot, tests it, and its mail becomes a ticket in the open list', async () => {
    const taken = (await mailboxes(server, admin)).length;
    const { page, failed } = await open(server, { scheme: 'light', width: 1440, height: 900 });
    expect(await page.getByTestId('mailbox-limit').textContent()).toBe(`${taken} of 5 mailboxes`);

    await page.getByTestId('mailbox-new').click();
    await page.getByRole('dialog', { name: 'Add mailbox' }).waitFor();
    await page.getByLabel('E-mail address').fill('help.acme.test');
    await page.getByLabel('Display name').fill('Acme Support');
    await page.getByRole('combobox', { name: 'Department' }).click();
    await page.getByRole('option', { name: 'Support' }).click();
    await field(page, 'mailbox-imap', 'Server').fill('127.0.0.1');
    await page.getByTestId('mailbox-imap').getByRole('switch', { name: 'TLS from the start' }).uncheck();
    await field(page, 'mailbox-imap', 'Port').fill(String(dovecot.port));
    await field(page, 'mailbox-imap', 'User name').fill(BOX);
    await field(page, 'mailbox-imap', 'Password').fill(dovecot.password);
    await field(page, 'mailbox-smtp', 'Server').fill('127.0.0.1');
    await page.getByTestId('mailbox-smtp').getByRole('switch', { name: 'TLS from the start' }).uncheck();
    await field(page, 'mailbox-smtp', 'Port').fill(String(smtp.port));
    await field(page, 'mailbox-smtp', 'User name').fill(BOX);
    await field(page, 'mailbox-smtp', 'Password').fill(SMTP_PASSWORD);

    await screenshot(page, 'mailboxes-form-1440-light');

    // The server's check shows under the form, in its words, and nothing is saved.
    await page.getByTestId('mailbox-save').click();
    await page.getByTestId('mailbox-error').waitFor();
    expect(await page.getByTestId('mailbox-error').textContent()).toBe(EMAIL_STRINGS.badAddress('help.acme.test'));
    expect(await mailboxes(server, admin, BOX)).toEqual([]);
    failed.length = 0; // that 400 was the point

    await page.getByLabel('E-mail address').fill(BOX);
    await page.getByTestId('mailbox-save').click();
    await page.getByRole('dialog', { name: 'Add mailbox' }).waitFor({ state: 'detached' });
    const row = page.getByTestId('mailbox-row').filter({ hasText: BOX });
    await row.waitFor();
    expect(await page.getByTestId('mailbox-limit').textContent()).toBe(`${taken + 1} of 5 mailboxes`);
    const text = await row.textContent();
    expect(text).toContain(BOX);
    expect(text).toContain('Acme Support');
    expect(text).toContain('Support');
    expect(await row.getByTestId('mailbox-imap-summary').textContent()).toBe(`IMAP 127.0.0.1:${dovecot.port}`);
    expect(await row.getByTestId('mailbox-smtp-summary').textContent()).toBe(`SMTP 127.0.0.1:${smtp.port}`);
    expect(await row.getByRole('switch', { name: `Fetch mail of ${BOX}` }).isChecked()).toBe(true);
    const forwarding = row.getByTestId('mailbox-forwarding');
    expect(await forwarding.textContent()).toMatch(
      /^Forward mail to:mbx-\d+-[0-9a-f]{20}@in\.parley\.testCopyNew address$/,
    );
    // A new address asks first; Cancel keeps the old one, confirming shows another.
    const oldAddress = await forwarding.locator('code').textContent();
    await forwarding.getByRole('button', { name: 'New address' }).click();
    const ask = row.getByTestId('mailbox-renew-ask');
    await ask.getByText('Mail sent to this address will be refused from now on. Make a new address?').waitFor();
    await ask.getByRole('button', { name: 'Cancel' }).click();
    await ask.waitFor({ state: 'detached' });
    expect(await forwarding.locator('code').textContent()).toBe(oldAddress);
    await forwarding.getByRole('button', { name: 'New address' }).click();
    await ask.getByRole('button', { name: 'Make a new address' }).click();
    await expect.poll(() => forwarding.locator('code').textContent()).not.toBe(oldAddress);
    expect(await forwarding.locator('code').textContent()).toMatch(/^mbx-\d+-[0-9a-f]{20}@in\.parley\.test$/);

    // Both logins, side by side, in the servers' words.
    await row.getByTestId('mailbox-test').click();
    await row.getByTestId('mailbox-test-result').waitFor();
    const imap = row.getByTestId('mailbox-test-imap');
    const smtpSide = row.getByTestId('mailbox-test-smtp');
    expect(await imap.getAttribute('data-ok')).toBe('true');
    expect(await imap.textContent()).toContain(EMAIL_STRINGS.testOk);
    expect(await imap.textContent()).toMatch(/Dovecot/i);
    expect(await smtpSide.getAttribute('data-ok')).toBe('true');
    expect(await smtpSide.textContent()).toContain(EMAIL_STRINGS.testOk);
    const a = await imap.boundingBox();
    const b = await smtpSide.boundingBox();
    expect(Math.abs(a!.y - b!.y)).toBeLessThan(2);
    expect(b!.x).toBeGreaterThan(a!.x + a!.width - 1);
    expect(await axe(page, '[data-testid="mailboxes-card"]')).toEqual([]);
    await screenshot(page, 'mailboxes-1440-light');

    // The ticket list, open before the mail is sent: the mail arrives by IDLE and joins it without a reload.
    await page.goto(`${server.url}/ticket`);
    // Connected first: the list is read again when the page's socket comes up.
    await waitConnected(page);
    await expect.poll(async () => page.getByTestId('ticket-count').textContent()).toBe('0');
    let loads = 0;
    page.on('request', (r) => {
      if (r.url().includes('/api/ticket/load/')) loads++;
    });
    await dovecot.append(
      BOX,
      rawMail({
        from: 'Pat Lee <pat@example.net>',
        to: BOX,
        subject: 'The printer is on fire',
        messageId: `fire-${Date.now()}@example.net`,
        text: 'Smoke everywhere.',
      }),
    );
    await page.getByTestId('ticket-row').filter({ hasText: 'The printer is on fire' }).waitFor({ timeout: 20_000 });
    expect(loads).toBe(0);
    expect(failed).toEqual([]);
  });

  it('PLAN-19 passwords are write-only: an edit without them keeps them; a wrong one shows the servers words; delete asks first', async () => {
    const login = { host: '127.0.0.1', tls: false, user: DESK };
    await apiJson(
      `${server.url}/api/mailboxes`,
      'POST',
      {
        address: DESK,
        name: 'Acme Desk',
        imap: { ...login, port: dovecot.port, password: dovecot.password },
        smtp: { ...login, port: smtp.port, password: SMTP_PASSWORD },
      },
      admin,
    );
    const { page, failed } = await open(server, { scheme: 'dark', width: 390, height: 844 });
    const row = page.getByTestId('mailbox-row').filter({ hasText: DESK });
    await row.waitFor();
    const taken = (await mailboxes(server, admin)).length;

    // An edit that leaves the passwords empty sends none.
    await row.getByRole('button', { name: `Edit ${DESK}` }).click();
    await page.getByRole('dialog', { name: 'Edit mailbox' }).waitFor();
    for (const group of ['mailbox-imap', 'mailbox-smtp'] as const) {
      expect(await field(page, group, 'Password').inputValue()).toBe('');
      expect(await page.getByTestId(group).textContent()).toContain('Saved — leave empty to keep it');
    }
    await modalSettled(page);
    expect(await axe(page, '[role="dialog"]')).toEqual([]);
    await screenshot(page, 'mailboxes-form-390-dark');
    await page.getByLabel('Display name').fill('Acme Help Desk');
    const sent = page.waitForRequest((r) => r.method() === 'PUT' && r.url().includes('/api/mailboxes/'));
    await page.getByTestId('mailbox-save').click();
    const body = (await sent).postDataJSON() as { imap: object; smtp: object; name: string };
    expect(body.name).toBe('Acme Help Desk');
    expect(body.imap).not.toHaveProperty('password');
    expect(body.smtp).not.toHaveProperty('password');
    await page.getByRole('dialog', { name: 'Edit mailbox' }).waitFor({ state: 'detached' });
    await row.getByText('Acme Help Desk').waitFor();
    await row.getByTestId('mailbox-test').click();
    await expect.poll(() => row.getByTestId('mailbox-test-imap').getAttribute('data-ok')).toBe('true');
    expect(await row.getByTestId('mailbox-test-smtp').getAttribute('data-ok')).toBe('true');

    // Wrong passwords: the test answers each side in the server's own words.
    await row.getByRole('button', { name: `Edit ${DESK}` }).click();
    await page.getByRole('dialog', { name: 'Edit mailbox' }).waitFor();
    await field(page, 'mailbox-imap', 'Password').fill('not the password');
    await field(page, 'mailbox-smtp', 'Password').fill('not the password either');
    await page.getByTestId('mailbox-save').click();
    await page.getByRole('dialog', { name: 'Edit mailbox' }).waitFor({ state: 'detached' });
    await row.getByTestId('mailbox-test').click();
    await expect.poll(() => row.getByTestId('mailbox-test-imap').getAttribute('data-ok')).toBe('false');
    expect(await row.getByTestId('mailbox-test-imap').textContent()).toContain('Authentication failed.');
    expect(await row.getByTestId('mailbox-test-smtp').getAttribute('data-ok')).toBe('false');
    expect(await row.getByTestId('mailbox-test-smtp').textContent()).toContain('535 5.7.8 Bad credentials');

    // The fetcher's own error shows on the row in red.
    await expect
      .poll(async () => (await mailboxes(server, admin, DESK))[0]?.lastError, { timeout: 20_000 })
      .toBeTruthy();
    const lastError = (await mailboxes(server, admin, DESK))[0]?.lastError ?? '';
    expect(lastError).not.toBe('');
    await page.reload();
    await row.getByTestId('mailbox-test').click();
    await expect.poll(() => row.getByTestId('mailbox-test-imap').getAttribute('data-ok')).toBe('false');
    expect(await row.getByTestId('mailbox-last-error').textContent()).toContain(lastError);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(await axe(page, '[data-testid="mailboxes-card"]')).toEqual([]);
    await screenshot(page, 'mailboxes-390-dark');

    // The switch stops the fetching and keeps the mailbox (and its passwords).
    await row.getByRole('switch', { name: `Fetch mail of ${DESK}` }).click();
    await row.getByText('Inactive', { exact: true }).waitFor();
    expect((await mailboxes(server, admin, DESK))[0]).toMatchObject({ active: false, name: 'Acme Help Desk' });

    // Delete asks first; Cancel keeps it.
    await row.getByRole('button', { name: `Delete ${DESK}` }).click();
    await page.getByRole('dialog', { name: 'Delete mailbox' }).waitFor();
    await modalSettled(page);
    await page.getByRole('dialog', { name: 'Delete mailbox' }).getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('dialog', { name: 'Delete mailbox' }).waitFor({ state: 'detached' });
    expect(await mailboxes(server, admin, DESK)).toHaveLength(1);
    await row.getByRole('button', { name: `Delete ${DESK}` }).click();
    await page.getByTestId('mailbox-delete-confirm').click();
    await row.waitFor({ state: 'detached' });
    expect(await page.getByTestId('mailbox-limit').textContent()).toBe(`${taken - 1} of 5 mailboxes`);
    expect(await mailboxes(server, admin, DESK)).toEqual([]);
    expect(failed).toEqual([]);
  });

  it('EMAIL a forwarding-only mailbox: the form asks no IMAP login and says why; the row shows its forwarding address and no fetch', async () => {
    const address = `fwd-${randomBytes(3).toString('hex')}@acme.test`;
    const views = [
      { scheme: 'light', width: 1440, height: 900 },
      { scheme: 'dark', width: 1440, height: 900 },
      { scheme: 'light', width: 390, height: 844 },
      { scheme: 'dark', width: 390, height: 844 },
    ] as const;
    try {
      for (const [i, view] of views.entries()) {
        const { page, failed } = await open(server, view);
        await page.getByTestId('mailbox-new').click();
        const dialog = page.getByRole('dialog', { name: 'Add mailbox' });
        await dialog.waitFor();
        await page.getByTestId('mailbox-kind').getByText('Forwarding only').click();
        const note = page.getByTestId('mailbox-forwarding-only');
        await note.waitFor();
        expect(await note.textContent()).toContain('No IMAP login is needed');
        expect(await page.getByTestId('mailbox-imap').count()).toBe(0);
        await page.getByLabel('E-mail address').fill(address);
        await modalSettled(page);
        // The top of the form: the connection switch and the note in place of the IMAP login.
        await screenshot(page, `mailboxes-forwarding-form-${view.width}-${view.scheme}`);
        await field(page, 'mailbox-smtp', 'Server').fill('127.0.0.1');
        await page.getByTestId('mailbox-smtp').getByRole('switch', { name: 'TLS from the start' }).uncheck();
        await field(page, 'mailbox-smtp', 'Port').fill(String(smtp.port));
        await field(page, 'mailbox-smtp', 'User name').fill(address);
        await field(page, 'mailbox-smtp', 'Password').fill(SMTP_PASSWORD);
        expect(await axe(page, '[role="dialog"]')).toEqual([]);
        if (i > 0) {
          await dialog.getByRole('button', { name: 'Cancel' }).click();
          await dialog.waitFor({ state: 'detached' });
        } else {
          await page.getByTestId('mailbox-save').click();
          await dialog.waitFor({ state: 'detached' });
          expect((await mailboxes(server, admin, address))[0]).toMatchObject({ kind: 'forwarding' });
        }
        const row = page.getByTestId('mailbox-row').filter({ hasText: address });
        await row.waitFor();
        expect(await row.getByTestId('mailbox-imap-summary').textContent()).toBe('Forwarding only (no IMAP)');
        expect(await row.getByTestId('mailbox-forwarding').locator('code').textContent()).toMatch(
          /^mbx-\d+-[0-9a-f]{20}@in\.parley\.test$/,
        );
        // Nothing is fetched for it, so no "Not fetched yet".
        expect(await row.getByTestId('mailbox-last-fetch').count()).toBe(0);
        if (i === 0) {
          // The test tries the SMTP login only.
          await row.getByTestId('mailbox-test').click();
          await row.getByTestId('mailbox-test-smtp').waitFor();
          expect(await row.getByTestId('mailbox-test-smtp').getAttribute('data-ok')).toBe('true');
          expect(await row.getByTestId('mailbox-test-imap').count()).toBe(0);
          // Editing keeps the kind: the switch is fixed, the note stays, no IMAP fields.
          await row.getByRole('button', { name: `Edit ${address}` }).click();
          const edit = page.getByRole('dialog', { name: 'Edit mailbox' });
          await edit.waitFor();
          await page.getByTestId('mailbox-forwarding-only').waitFor();
          expect(await page.getByTestId('mailbox-imap').count()).toBe(0);
          await edit.getByRole('button', { name: 'Cancel' }).click();
          await edit.waitFor({ state: 'detached' });
        }
        expect(await axe(page, '[data-testid="mailboxes-card"]')).toEqual([]);
        await row.scrollIntoViewIfNeeded();
        await screenshot(page, `mailboxes-forwarding-${view.width}-${view.scheme}`);
        expect(failed).toEqual([]);
      }
    } finally {
      for (const m of await mailboxes(server, admin, address))
        await apiJson(`${server.url}/api/mailboxes/${m.id}`, 'DELETE', undefined, admin);
    }
  }, 240_000);

  it('PLAN-20 at the plan limit (5 on Starter and a trial) Add is greyed and the card says why', async () => {
    const added: number[] = [];
    const login = { host: '127.0.0.1', tls: false, user: DESK, password: 'unused' };
    for (let i = (await mailboxes(server, admin)).length; i < 5; i++) {
      const body = {
        address: `full-${i}@acme.test`,
        active: false,
        imap: { ...login, port: dovecot.port },
        smtp: { ...login, port: smtp.port },
      };
      added.push((await apiJson(`${server.url}/api/mailboxes`, 'POST', body, admin)).data.id);
    }
    try {
      for (const view of [
        { scheme: 'dark', width: 1440, height: 900 },
        { scheme: 'light', width: 390, height: 844 },
      ] as const) {
        const { page, failed } = await open(server, view);
        expect(await page.getByTestId('mailbox-limit').textContent()).toBe(
          `5 of 5 mailboxes ${EMAIL_STRINGS.planLimit(5, 1)}`,
        );
        expect(await page.getByTestId('mailbox-new').isDisabled()).toBe(true);
        expect(await page.getByTestId('mailbox-row').count()).toBe(5);
        const full = page.getByTestId('mailbox-row').filter({ hasText: 'full-' }).first();
        expect(await full.textContent()).toContain('Inactive');
        expect(failed).toEqual([]);
        expect(await axe(page, '[data-testid="mailboxes-card"]')).toEqual([]);
        await screenshot(page, `mailboxes-full-${view.width}-${view.scheme}`);
      }
    } finally {
      for (const id of added) await apiJson(`${server.url}/api/mailboxes/${id}`, 'DELETE', undefined, admin);
    }
  });

  it('without SECRETS_KEY the section says so once, in the server words, and offers no Add', async () => {
    for (const view of [
      { scheme: 'light', width: 1440, height: 900 },
      { scheme: 'dark', width: 390, height: 844 },
    ] as const) {
      const { page, failed } = await open(bare, view);
      const note = page.getByTestId('mailboxes-not-configured');
      expect(await note.textContent()).toBe(EMAIL_STRINGS.notConfigured);
      expect(await page.getByText(EMAIL_STRINGS.notConfigured).count()).toBe(1);
      expect(await page.getByTestId('mailbox-new').count()).toBe(0);
      expect(await page.getByTestId('mailbox-limit').textContent()).toBe('0 of 5 mailboxes');
      expect(failed).toEqual([]);
      expect(await axe(page, '[data-testid="mailboxes-card"]')).toEqual([]);
      await screenshot(page, `mailboxes-not-configured-${view.width}-${view.scheme}`);
    }
    expect(await mailboxes(bare, bareAdmin)).toEqual([]);
  });
});

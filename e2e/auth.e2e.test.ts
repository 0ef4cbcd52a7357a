import { generate } from 'otplib';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAgent, launchBrowser, logOut, newContext, type RunningServer, screenshot, startServer } from './support.js';

const PASSWORD = 'correct horse battery';

async function signIn(page: Page, url: string, username: string, password = PASSWORD) {
  await page.goto(url);
  await page.getByLabel('Username', { exact: true }).fill(username);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

describe('sign-in and sessions in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    // The first workspace through the API; the browser tests below start from the sign-in page.
    const r = await fetch(`${server.url}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        company: 'Acme',
        name: 'Ann Admin',
        username: 'ann',
        email: 'ann@example.com',
        password: PASSWORD,
      }),
    });
    expect(r.status).toBe(200);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('AUTH-05 AUTH-06 turn on two-factor sign-in, then sign in with a code', async () => {
    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    await signIn(page, server.url, 'ann');
    await page.getByTestId('welcome').waitFor();
    await page.goto(`${server.url}/settings/security`);
    // Enrolling asks for the password: without it, or with a wrong one, nothing is set up.
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    await page.getByRole('alert').getByText('Password is required.').waitFor();
    await page.getByLabel('Your password, to set it up').fill('not the password');
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    await page.getByRole('alert').getByText('Your current password is not correct.').waitFor();
    await page.getByLabel('Your password, to set it up').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    const secret = (await page.getByTestId('tfa-secret').textContent())!.trim();
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    await screenshot(page, 'settings-2fa-scan');
    await page.getByLabel('6-digit code').fill(await generate({ secret }));
    await page.getByRole('button', { name: 'Turn on' }).click();
    await page.getByTestId('backup-codes').waitFor();
    expect(await page.getByTestId('backup-codes').locator('code').count()).toBe(10);
    await page.getByRole('button', { name: 'Done' }).click();
    await logOut(page);

    await signIn(page, server.url, 'ann');
    const tfa = page.getByLabel('Two-factor code');
    await tfa.waitFor();
    // The code that turned it on is used up: the next one (a phone clock a little ahead) signs in.
    await tfa.fill(await generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 }));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('welcome').waitFor();

    // Turn it off again so the other tests sign in with a password only.
    await page.goto(`${server.url}/settings/security`);
    await page.getByLabel('Your password, to turn it off').fill(PASSWORD);
    await page.getByRole('button', { name: 'Turn off' }).click();
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).waitFor();
    await ctx.close();
  });

  it('AUTH-20 AUTH-22 AUTH-25 the 5-minute auth check survives a server restart without a visible error', async () => {
    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    await page.clock.install();
    await signIn(page, server.url, 'ann');
    await page.getByTestId('welcome').waitFor();

    await server.kill();
    const checks: number[] = [];
    let failed = 0;
    page.on('response', (r) => {
      if (r.url().endsWith('/api/auth/check')) checks.push(r.status());
    });
    page.on('requestfailed', (r) => {
      if (r.url().endsWith('/api/auth/check')) failed++;
    });
    await page.clock.fastForward('05:00'); // the check runs and fails: the server is down
    await page.clock.fastForward('00:05'); // a retry 5 s later, still down
    await expect.poll(() => failed, { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
    await server.restart();
    await page.clock.fastForward('00:05'); // the next retry reaches the restarted server
    await expect.poll(() => checks.includes(200), { timeout: 10_000 }).toBe(true);
    // The home screen stays (it may redraw while the socket reconnects), and no error was shown.
    await page.getByTestId('welcome').waitFor({ timeout: 10_000 });
    expect(await page.getByText('Network error').count()).toBe(0);
    await ctx.close();
  });

  it('AUTH-01 AUTH-30 the sign-in form sends type: Agent by default, Admin when chosen; an agent is refused as Admin', async () => {
    const admin = await fetch(`${server.url}/api/auth2`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client: 'ann', password: PASSWORD }),
    }).then((r) => r.json() as Promise<{ token: string }>);
    await addAgent(server.url, admin.token, 'bea', 'Bea Agent');
    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    const sent = async (act: () => Promise<void>) => {
      const request = page.waitForRequest((r) => r.url().endsWith('/api/auth2') && r.method() === 'POST');
      await act();
      return (await request).postDataJSON() as Record<string, unknown>;
    };

    expect(await sent(() => signIn(page, server.url, 'bea'))).toEqual({
      client: 'bea',
      password: PASSWORD,
      type: 'agent',
    });
    await page.getByTestId('welcome').waitFor();
    await logOut(page);

    await page.getByRole('heading', { name: 'Sign in to Parley' }).waitFor();
    await page.getByText('Admin', { exact: true }).click();
    expect(
      await sent(async () => {
        await page.getByLabel('Username', { exact: true }).fill('bea');
        await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
        await page.getByRole('button', { name: 'Sign in' }).click();
      }),
    ).toMatchObject({ client: 'bea', type: 'admin' });
    await page.getByRole('alert').filter({ hasText: 'This user is not an admin. Choose Agent to sign in.' }).waitFor();
    await screenshot(page, 'signin-not-admin');

    // An admin signs in as Admin.
    await page.getByLabel('Username', { exact: true }).fill('ann');
    expect(await sent(() => page.getByRole('button', { name: 'Sign in' }).click())).toMatchObject({
      client: 'ann',
      type: 'admin',
    });
    await page.getByTestId('welcome').waitFor();
    await ctx.close();
  });

  it('AUTH-21 a revoked session is sent back to the sign-in page', async () => {
    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    await page.clock.install();
    await signIn(page, server.url, 'ann');
    await page.getByTestId('welcome').waitFor();

    // Another device of Ann's ends this session from its settings.
    const other = await fetch(`${server.url}/api/auth2`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client: 'ann', password: PASSWORD }),
    }).then((r) => r.json() as Promise<{ token: string }>);
    const auth = { authorization: `Bearer ${other.token}` };
    const list = await fetch(`${server.url}/api/user/sessions`, { headers: auth }).then(
      (r) => r.json() as Promise<{ data: { id: number; current: boolean; user_agent: string }[] }>,
    );
    const browserSession = list.data.find((s) => !s.current && s.user_agent.includes('Chrome'));
    expect(browserSession).toBeDefined();
    const del = await fetch(`${server.url}/api/user/sessions/${browserSession!.id}`, {
      method: 'DELETE',
      headers: auth,
    });
    expect(del.status).toBe(200);

    await page.clock.fastForward('05:00');
    await page.getByRole('heading', { name: 'Sign in to Parley' }).waitFor({ timeout: 10_000 });
    await ctx.close();
  });

  it('PLAN-03 PLAN-10 sign-up starts a trial, and a trial account is sent home from other paths', async () => {
    const ctx = await newContext(browser, 'dark');
    const page = await ctx.newPage();
    await page.goto(`${server.url}/signup`);
    await page.getByLabel('Company name').fill('Trial Co');
    await page.getByLabel('Your name').fill('Tess Trial');
    await page.getByLabel('Username', { exact: true }).fill('tess');
    await page.getByLabel('E-mail').fill('tess@example.com');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await screenshot(page, 'signup-dark');
    await page.getByRole('button', { name: 'Start trial' }).click();
    await page.getByTestId('welcome').waitFor();
    expect(await page.getByTestId('welcome').textContent()).toBe('Welcome, Tess Trial');
    await page.goto(`${server.url}/report`);
    await page.getByTestId('welcome').waitFor();
    expect(new URL(page.url()).pathname).toBe('/');
    await ctx.close();
  });

  it('AUTH-05 an account that requires two-factor sign-in: the server holds a user back until the setup is done', async () => {
    const signup = await fetch(`${server.url}/api/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        company: 'Strict Co',
        name: 'Rita Strict',
        username: 'rita',
        email: 'rita@example.com',
        password: PASSWORD,
      }),
    });
    expect(signup.status).toBe(200);
    const { token } = (await signup.json()) as { token: string };
    const on = await fetch(`${server.url}/api/account/security`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ require_2fa: true }),
    });
    expect(on.status).toBe(200);

    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    await signIn(page, server.url, 'rita');
    await page.getByText('Your team requires two-factor sign-in').waitFor();
    // Signed in with the password alone, the API answers nothing else.
    const refused = await page.evaluate(async () => (await fetch('/api/user/sessions')).status);
    expect(refused).toBe(403);
    await page.getByLabel('Your password, to set it up').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    const secret = (await page.getByTestId('tfa-secret').textContent())!.trim();
    await page.getByLabel('6-digit code').fill(await generate({ secret }));
    await page.getByRole('button', { name: 'Turn on' }).click();
    await page.getByTestId('backup-codes').waitFor();
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByTestId('welcome').waitFor();
    expect(await page.getByTestId('welcome').textContent()).toBe('Welcome, Rita Strict');
    expect(await page.evaluate(async () => (await fetch('/api/user/sessions')).status)).toBe(200);
    await ctx.close();
  });
});

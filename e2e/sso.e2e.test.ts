import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SSO_STRINGS as S } from '@parley/contracts';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startOidcIdp } from '../apps/server/src/testing/oidcIdp.js';
import { rsaCertificate, startSamlIdp } from '../apps/server/src/testing/samlIdp.js';
import {
  animationsSettled,
  apiJson,
  launchBrowser,
  type RunningServer,
  screenshot,
  seedWorkspace,
  signInAs,
  startServer,
  waitConnected,
} from './support.js';

/**
 * Single sign-on in Chromium: the admin sets up OpenID Connect in Settings, a new colleague signs in through
 * the loopback OIDC provider (created just in time), signs out through the provider's end-session endpoint;
 * then the account switches to SAML and another colleague signs in through the loopback SAML IdP's
 * auto-posted form.
 */
describe('single sign-on in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  let oidc: Awaited<ReturnType<typeof startOidcIdp>>;
  let saml: Awaited<ReturnType<typeof startSamlIdp>>;
  let adminToken = '';
  const contexts: BrowserContext[] = [];
  beforeAll(async () => {
    oidc = await startOidcIdp({ clientId: 'parley-e2e', clientSecret: 'e2e client secret' });
    saml = await startSamlIdp();
    // The installation's SAML signing key, for single logout; the IdP checks the SP's signature with it.
    const sp = rsaCertificate('Parley SP');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-sp-'));
    fs.writeFileSync(path.join(dir, 'sp.key'), sp.key);
    fs.writeFileSync(path.join(dir, 'sp.crt'), sp.cert);
    saml.state.spCert = sp.cert;
    [server, browser] = await Promise.all([
      startServer({
        SSO_ALLOWED_HOSTS: `${oidc.host},${saml.host}`,
        SECRETS_KEY: crypto.randomBytes(32).toString('base64'),
        SAML_SP_KEY_FILE: path.join(dir, 'sp.key'),
        SAML_SP_CERT_FILE: path.join(dir, 'sp.crt'),
      }),
      launchBrowser(),
    ]);
    adminToken = await seedWorkspace(server.url);
    await apiJson(`${server.url}/api/departments`, 'POST', { name: 'Tier 1' }, adminToken);
  }, 120_000);
  afterEach(async () => {
    for (const c of contexts.splice(0)) await c.close();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await oidc?.close();
    await saml?.close();
  });

  async function context(scheme: 'light' | 'dark' = 'light', width = 1440): Promise<Page> {
    const ctx = await browser.newContext({
      viewport: { width, height: width < 500 ? 844 : 900 },
      colorScheme: scheme,
      ...(width < 500 ? { isMobile: true, hasTouch: true } : {}),
    });
    contexts.push(ctx);
    if (scheme === 'dark') await ctx.addCookies([{ name: 'dark', value: '1', url: server.url }]);
    return ctx.newPage();
  }

  /** The sign-in page -> Sign in with SSO -> the sign-in name -> (the IdP) -> the app, signed in. */
  async function ssoSignIn(page: Page, name: string) {
    await page.goto(server.url);
    await page.getByTestId('sso-offer').click();
    await page.getByLabel(S.ssoCompany).fill(name);
    await page.getByRole('button', { name: S.ssoContinue }).click();
    await waitConnected(page);
  }
  const me = async (page: Page) =>
    page.evaluate(async () => {
      const r = await fetch('/api/auth/check', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      return (await r.json()) as { result: string; adminUsername?: string; type?: string };
    });

  it('SSO an admin sets up OpenID Connect; a colleague signs in through the provider (JIT) and signs out through it', async () => {
    // No account has SSO yet: the sign-in page does not offer it.
    const first = await context();
    await first.goto(server.url);
    await first.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    expect(await first.getByTestId('sso-offer').count()).toBe(0);

    const page = await context();
    await signInAs(page, server.url, 'ann');
    await page.goto(`${server.url}/settings/sso`);
    await page.getByTestId('sso-card').waitFor();
    await page.getByLabel(S.slug).fill('acme');
    await page.getByLabel(S.issuer).fill(oidc.issuer);
    await page.getByLabel(S.clientId).fill('parley-e2e');
    await page.getByLabel(S.clientSecret).fill('e2e client secret');
    await page.getByRole('combobox', { name: S.jitType }).click();
    await page.getByRole('option', { name: 'Supervisor', exact: true }).click();
    await page.getByRole('combobox', { name: S.jitDepartment }).click();
    await page.getByRole('option', { name: 'Tier 1', exact: true }).click();
    await page.getByTestId('sso-save').click();
    await page.getByText(S.clientSecretKept).waitFor();
    await expect.poll(async () => page.getByTestId('sso-addresses').textContent()).toContain('/oidc/callback');
    await page.getByRole('button', { name: S.test }).click();
    await page.getByText(S.testOk, { exact: false }).waitFor();
    await animationsSettled(page);
    await screenshot(page, 'sso-settings-oidc-1440-light');

    oidc.state.user = { sub: 'e2e-1', email: 'olga@idp.example', name: 'Olga Oidc' };
    const olga = await context();
    await ssoSignIn(olga, 'acme');
    const who = await me(olga);
    expect(who).toMatchObject({ result: 'success', type: 'supervisor', adminUsername: 'olga' });
    const users = await apiJson(`${server.url}/api/users`, 'GET', undefined, adminToken);
    const row = users.data.find((u: { email: string }) => u.email === 'olga@idp.example');
    expect(row).toMatchObject({ type: 'supervisor', name: 'Olga Oidc' });
    expect(row.departments).toHaveLength(1);

    // Log Out ends the Parley session and goes through the provider's end-session endpoint, then back.
    await olga.getByTestId('user-menu').click();
    await olga.getByRole('menuitem', { name: 'Log Out' }).click();
    await olga.getByTestId('confirm-logout').click();
    await olga.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    expect(oidc.state.endSessions).toHaveLength(1);
    expect(oidc.state.endSessions[0]).toContain('id_token_hint=');
    expect((await me(olga)).result).toBe('failed');
  });

  it('SSO a colleague signs in through the SAML IdP; a refused sign-in says why on the sign-in page', async () => {
    const r = await apiJson(
      `${server.url}/api/sso/config`,
      'PUT',
      { kind: 'saml', enabled: true, slug: 'acme', jitType: 'agent', saml: { metadataXml: saml.metadata() } },
      adminToken,
    );
    expect(r.result).toBe('success');
    saml.state.user = { nameId: 'sam@idp.example', email: 'sam@idp.example', name: 'Sam Saml' };
    const sam = await context();
    await ssoSignIn(sam, 'acme');
    expect(await me(sam)).toMatchObject({ result: 'success', type: 'agent', adminUsername: 'sam' });
    // Log Out: single logout through the IdP (a signed LogoutRequest for Sam), whose LogoutResponse brings the
    // browser back to the sign-in page.
    await sam.getByTestId('user-menu').click();
    await sam.getByRole('menuitem', { name: 'Log Out' }).click();
    await sam.getByTestId('confirm-logout').click();
    await sam.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    expect(saml.state.logoutRequests).toHaveLength(1);
    expect(saml.state.logoutRequests[0]).toMatchObject({ nameId: 'sam@idp.example', signatureValid: true });
    expect(new URL(sam.url()).origin).toBe(server.url);
    expect((await me(sam)).result).toBe('failed');

    // An unknown sign-in name is said so in the form; a refused answer comes back with its reason.
    const other = await context('light', 390);
    await other.goto(server.url);
    await other.getByTestId('sso-offer').click();
    await other.getByLabel(S.ssoCompany).fill('nobody');
    await other.getByRole('button', { name: S.ssoContinue }).click();
    await other.getByText(S.unknownSlug).waitFor();
    await screenshot(other, 'sso-sign-in-390-light');
    await other.goto(`${server.url}/?sso_error=expired`);
    await other.getByText(S.expired).waitFor();
    expect(new URL(other.url()).search).toBe('');
  });

  it('SSO screenshots: Settings -> Single sign-on at 1440 and 390x844, light and dark', async () => {
    for (const [scheme, width] of [
      ['dark', 1440],
      ['light', 390],
      ['dark', 390],
    ] as const) {
      const page = await context(scheme, width);
      await signInAs(page, server.url, 'ann');
      await page.goto(`${server.url}/settings/sso`);
      await page.getByTestId('sso-card').waitFor();
      await page.getByTestId('sso-addresses').waitFor();
      await animationsSettled(page);
      await screenshot(page, `sso-settings-saml-${width}-${scheme}`);
    }
    const dark = await context('dark', 390);
    await dark.goto(server.url);
    await dark.getByTestId('sso-offer').click();
    await screenshot(dark, 'sso-sign-in-390-dark');
  });
});

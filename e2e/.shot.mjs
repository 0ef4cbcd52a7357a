// Local look-around script (not a test): node e2e/.shot.mjs <url> <user> <password> <path> <name> [width] [height] [scheme]
import { chromium } from 'playwright-core';

const [url, user, password, path, name, w = '1280', h = '800', scheme = 'light'] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
});
const ctx = await browser.newContext({ viewport: { width: Number(w), height: Number(h) }, colorScheme: scheme });
const page = await ctx.newPage();
await page.goto(url);
await page.getByLabel('Username', { exact: true }).fill(user);
await page.getByLabel('Password', { exact: true }).fill(password);
await page.getByRole('button', { name: 'Sign in' }).click();
await page.getByTestId('welcome').waitFor();
await page.goto(url + path);
await page.waitForTimeout(2500);
if (process.env.CLICK) {
  await page.getByTestId(process.env.CLICK).click();
  await page.waitForTimeout(800);
}
await page.screenshot({ path: `/tmp/shots/${name}.png` });
await browser.close();

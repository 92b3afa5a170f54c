#!/usr/bin/env node
// The production drill's browser step (scripts/containers/production-drill.sh): Debian's Chromium
// opens https://$AUTH_HOST/console/ through the TLS terminator and the first operator signs in as
// docs/production.md tells them to ("The first operator"): Sign in, the number, the code from the
// gateway's outbox, back in the console, whose Find a login screen then lists the operator
// (GET /api/v2/users with the operator's token). Any console error (a CSP violation, a refused request) fails it.
// Chromium reaches both host names at CONNECT_TO (--host-resolver-rules, standing in for DNS)
// and accepts the drill's certificate alone (its public key, --ignore-certificate-errors-spki-list).
// Environment: AUTH_URL, GATEWAY_PUBLIC_URL, CONNECT_TO, CA_FILE, OUTBOX_TOKEN_FILE,
// FIRST_OPERATOR_PHONE_NUMBER; CHROMIUM_PATH (default /usr/bin/chromium). Never prints a code or a token.
'use strict';
const { createHash, X509Certificate } = require('node:crypto');
const { existsSync } = require('node:fs');
const { join } = require('node:path');
const { drillSettings, newestOutboxCode } = require('./drill-https.cjs');

const settings = drillSettings();
const { authUrl, gatewayUrl, connectHost, connectPort, ca, phone } = settings;
const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
// playwright-core is test-browser's dependency (driving Debian's Chromium; no browser is downloaded).
const { chromium } = require(require.resolve('playwright-core', { paths: [join(__dirname, '../../test-browser')] }));

async function main() {
  if (!existsSync(chromiumPath)) throw new Error(`no Chromium at ${chromiumPath}: apt-get install chromium (or set CHROMIUM_PATH)`);
  // base64(SHA-256(SubjectPublicKeyInfo)): what Chromium pins.
  const spki = createHash('sha256')
    .update(new X509Certificate(ca).publicKey.export({ type: 'spki', format: 'der' }))
    .digest('base64');
  const rules = [authUrl.hostname, gatewayUrl.hostname].map((host) => `MAP ${host} ${connectHost}:${connectPort}`).join(', ');
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--host-resolver-rules=${rules}`,
      `--ignore-certificate-errors-spki-list=${spki}`,
    ],
  });
  try {
    const context = await browser.newContext();
    const page = await context.newPage();
    const problems = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`${message.location().url}: ${message.text()}`);
    });
    page.on('pageerror', (err) => problems.push(err.message));
    const consoleUrl = new URL('/console/', authUrl).href;
    await page.goto(consoleUrl);
    await Promise.all([
      page.waitForURL((url) => url.href.startsWith(new URL('/authorize', authUrl).href)),
      page.getByRole('button', { name: 'Sign in', exact: true }).click(),
    ]);
    await page.getByLabel('Mobile phone number').fill(phone);
    await page.getByRole('button', { name: 'Send code' }).click();
    await page.getByLabel('Code', { exact: true }).waitFor();
    let code;
    for (let attempt = 0; attempt < 20 && !code; attempt += 1) {
      code = await newestOutboxCode(settings, phone);
      if (!code) await new Promise((r) => setTimeout(r, 250));
    }
    if (!code) throw new Error(`no code for ${phone} in the gateway's outbox`);
    await page.getByLabel('Code', { exact: true }).fill(code);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const landed = page.locator('nav[aria-label="Console"], main.gate h1, button:text-is("Not now")').first();
    await landed.waitFor({ timeout: 15_000 });
    if (await page.getByRole('button', { name: 'Not now' }).isVisible()) {
      await page.getByRole('button', { name: 'Not now' }).click();
    }
    const nav = page.getByRole('navigation', { name: 'Console' });
    await nav.waitFor({ timeout: 15_000 }).catch(async () => {
      const gate = await page.locator('main.gate').textContent().catch(() => '');
      throw new Error(`the console did not open for the first operator: ${gate?.trim() || page.url()}`);
    });
    if (!page.url().startsWith(consoleUrl)) throw new Error(`the sign-in ended at ${page.url()}, not in the console`);
    // "Find a login" lists the operator: the console called GET /api/v2/users with the operator's token.
    await nav.getByRole('link', { name: 'Find a login', exact: true }).click();
    await page.getByLabel('Phone number, name or user id').fill(phone);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByTestId('user-results').getByText(phone).first().waitFor({ timeout: 15_000 }).catch(() => {
      throw new Error("the console's Find a login screen does not list the first operator");
    });
    if (problems.length > 0) throw new Error(`the console logged errors:\n  ${problems.join('\n  ')}`);
    console.log(`Chromium: the first operator signed in at ${consoleUrl}, and the console found them with GET /api/v2/users`);
  } finally {
    await browser.close();
  }
}

main().catch((err) => {
  console.error(`production drill (Chromium): ${err.message}`);
  process.exit(1);
});

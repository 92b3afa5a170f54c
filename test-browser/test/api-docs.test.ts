import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describeWithChromium } from '../src/chromium';
import { useBrowserSuite } from '../src/stack';

const SCREENSHOTS = join(__dirname, '..', 'test-results', 'api-docs');

describeWithChromium('API reference pages (GET /docs) in a real browser', () => {
  const suite = useBrowserSuite('smsauth-docs-', SCREENSHOTS);

  /**
   * Opens `{baseUrl}/docs`, waits for Swagger UI to render `method path` from the service's own
   * document, and checks the page broke no rule of its Content-Security-Policy and threw nothing.
   */
  async function expectOperationOnDocsPage(baseUrl: string, method: string, path: string, screenshot: string): Promise<void> {
    const context = await suite.browser.newContext();
    const page: Page = await context.newPage();
    const cspViolations: string[] = [];
    const pageErrors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
    });
    page.on('pageerror', (err) => pageErrors.push(err.message));
    try {
      const opened = await page.goto(`${baseUrl}/docs`);
      expect(opened?.status()).toBe(200);
      expect(opened?.headers()['content-security-policy']).toContain("default-src 'none'");

      const operation = page.locator(`.opblock.opblock-${method.toLowerCase()}`, {
        has: page.locator(`.opblock-summary-path[data-path="${path}"]`),
      });
      await operation.first().waitFor({ timeout: 30_000 });
      await expect(operation.locator('.opblock-summary-method').first().textContent()).resolves.toBe(method);
      await page.screenshot({ path: join(SCREENSHOTS, screenshot), fullPage: true });

      // Swagger UI's own complaints about the document (errors and warnings) open the page in red.
      expect(await page.locator('.errors-wrapper').count()).toBe(0);

      expect(cspViolations).toEqual([]);
      expect(pageErrors).toEqual([]);
    } finally {
      await context.close();
    }
  }

  it('airport-api: renders its Swagger 2.0 document (/openapi.yaml) and shows GET /airportName', async () => {
    await expectOperationOnDocsPage(suite.stack.urls.baseUrl, 'GET', '/airportName', 'airport-api.png');
  });

  it('sms-delivery-gateway: renders its OpenAPI 3.1 document (/openapi.json) and shows POST /sms', async () => {
    await expectOperationOnDocsPage(suite.stack.urls.gatewayUrl, 'POST', '/sms', 'sms-delivery-gateway.png');
  });

  it('identity: renders its OpenAPI document (/openapi.json) and shows POST /passwordless/start', async () => {
    const document = await fetch(`${suite.stack.urls.authUrl}/openapi.json`);
    if (document.status !== 200) {
      throw new Error(
        `identity's GET /openapi.json answered ${document.status}, not 200: its /docs page has no document to render ` +
          '(identity serves /openapi.json from services/identity/src/routes/openapi)',
      );
    }
    await expectOperationOnDocsPage(suite.stack.urls.authUrl, 'POST', '/passwordless/start', 'identity.png');
  });
});

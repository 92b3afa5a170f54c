import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderApiReferencePage } from '../../packages/service-kit/src/api-reference-docs';
import { environmentVariablesOf, renderConfigurationPage } from '../../packages/service-kit/src/config-docs';
import { configSchema as airportConfig } from '../../services/airport-api/src/config';
import { renderOpenApiDocument } from '../../services/airport-api/src/domain/openapi-document';
import { configSchema as identityConfig } from '../../services/identity/src/config';
import { managementOperations, managementRouter, managementRoutesOf, type ManagementDependencies } from '../../services/identity/src/routes/management';
import { buildIdentityOpenApiDocument } from '../../services/identity/src/routes/openapi';
import { configSchema as gatewayConfig } from '../../services/sms-delivery-gateway/src/config';
import { gatewayOpenApiDocument } from '../../services/sms-delivery-gateway/src/routes';

const REPO = join(__dirname, '..', '..');
const SERVICES = [
  { name: 'identity', schema: identityConfig },
  { name: 'sms-delivery-gateway', schema: gatewayConfig },
  { name: 'airport-api', schema: airportConfig },
];

describe('docs/configuration.md, generated from the environment schemas', () => {
  it('is what `pnpm docs:generate` renders from the schemas today (run `pnpm docs:generate` after changing a config field)', () => {
    expect(readFileSync(join(REPO, 'docs', 'configuration.md'), 'utf8')).toBe(renderConfigurationPage(SERVICES));
  });

  it('documents every variable each service reads, with its default', () => {
    const rows = Object.fromEntries(SERVICES.map(({ name, schema }) => [name, environmentVariablesOf(schema)]));
    const identity = Object.fromEntries(rows.identity!.map((row) => [row.name, row.default]));
    expect(identity).toMatchObject({ PORT: '`4000`', DATABASE_URL: '`pglite:.data/identity`', KEY_ENCRYPTION_SECRET: 'unset' });
    expect(rows['sms-delivery-gateway']!.map((row) => row.name)).toEqual(
      expect.arrayContaining(['SMS_PROVIDER', 'TWILIO_ACCOUNT_SID', 'TWILIO_API_BASE_URL', 'WEBHOOK_URL', 'OUTBOX_TOKEN']),
    );
    expect(rows['airport-api']!.find((row) => row.name === 'AUTH_URL')?.default).toBe('required');
  });
});

describe('docs/api-reference.md, generated from the OpenAPI documents the services serve', () => {
  // As scripts/docs/generate.mjs builds them: every optional route on, so the list is complete.
  const operations = managementOperations({} as ManagementDependencies);
  const identity = buildIdentityOpenApiDocument({
    version: '0',
    managementRoutes: managementRoutesOf(managementRouter({} as ManagementDependencies, operations)),
    managementOperations: operations,
  });
  const gateway = gatewayOpenApiDocument('0', { authEnabled: true, outboxRoutes: true, publicUrl: 'https://gateway.example.com' });
  const airport = renderOpenApiDocument({ authUrl: 'http://localhost:4000', audience: 'https://airport-api.example.com' }).document;
  const page = renderApiReferencePage([
    { name: 'identity', served: 'GET /openapi.json', page: 'identity.md', document: identity },
    { name: 'sms-delivery-gateway', served: 'GET /openapi.json', page: 'sms-delivery-gateway.md', document: gateway },
    { name: 'airport-api', served: 'GET /openapi.yaml', page: 'airport-api.md', document: airport },
  ]);

  it('is what `pnpm docs:generate` renders from the documents today (run `pnpm docs:generate` after changing a route)', () => {
    expect(readFileSync(join(REPO, 'docs', 'api-reference.md'), 'utf8')).toBe(page);
  });

  it("lists each service's operations, optional ones included", () => {
    for (const operation of ['`POST /passwordless/start`', '`POST /api/v2/connections`', '`POST /sms`', '`GET /outbox/messages`', '`POST /receipts/{provider}/{id}`', '`GET /airportName`']) {
      expect(page).toContain(`| ${operation} |`);
    }
  });
});

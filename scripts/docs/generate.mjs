// Renders the generated reference pages under docs/ from the code: docs/configuration.md from
// the services' zod environment schemas. Reads the built packages (run `pnpm build` first;
// `pnpm docs:generate` does). `--check` writes nothing and exits 1 when a committed page is stale.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { identityDocument } from './identity-document.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const load = (path) => require(join(root, path));

const { renderApiReferencePage, renderConfigurationPage } = load('packages/service-kit/dist/index.js');
const { gatewayOpenApiDocument } = load('services/sms-delivery-gateway/dist/routes/index.js');
const { renderOpenApiDocument } = load('services/airport-api/dist/domain/openapi-document.js');


// Every optional route on, so that the list is complete (test-architecture renders the same).
const pages = {
  'docs/api-reference.md': renderApiReferencePage([
    {
      name: 'identity',
      served: 'GET /openapi.json',
      page: 'identity.md',
      document: identityDocument(),
    },
    {
      name: 'sms-delivery-gateway',
      served: 'GET /openapi.json',
      page: 'sms-delivery-gateway.md',
      document: gatewayOpenApiDocument('0', { authEnabled: true, outboxRoutes: true, publicUrl: 'https://gateway.example.com' }),
    },
    {
      name: 'airport-api',
      served: 'GET /openapi.yaml',
      page: 'airport-api.md',
      document: renderOpenApiDocument({ authUrl: 'http://localhost:4000', audience: 'https://airport-api.example.com' }).document,
    },
  ]),
  'docs/configuration.md': renderConfigurationPage([
    { name: 'identity', schema: load('services/identity/dist/config.js').configSchema },
    { name: 'sms-delivery-gateway', schema: load('services/sms-delivery-gateway/dist/config.js').configSchema },
    { name: 'airport-api', schema: load('services/airport-api/dist/config.js').configSchema },
  ]),
};

const check = process.argv.includes('--check');
let stale = 0;
for (const [path, text] of Object.entries(pages)) {
  const file = join(root, path);
  let current = '';
  try {
    current = readFileSync(file, 'utf8');
  } catch {
    // a missing page is stale
  }
  if (current === text) continue;
  stale += 1;
  if (check) console.error(`${path} is stale: run pnpm docs:generate`);
  else {
    writeFileSync(file, text);
    console.log(`wrote ${path}`);
  }
}
process.exit(check && stale > 0 ? 1 : 0);

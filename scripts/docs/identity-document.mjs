// Identity's OpenAPI document as the service builds it (the management router and its declared
// operations, every optional route on), from the built identity: no server, no database.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);

export function identityDocument() {
  const load = (path) => require(join(root, path));
  const { managementOperations, managementRouter, managementRoutesOf } = load('services/identity/dist/routes/management/index.js');
  const { buildIdentityOpenApiDocument } = load('services/identity/dist/routes/openapi/index.js');
  const operations = managementOperations({});
  return buildIdentityOpenApiDocument({ version: '0', managementRoutes: managementRoutesOf(managementRouter({}, operations)), managementOperations: operations });
}

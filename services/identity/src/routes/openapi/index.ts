import { mountOperations, servedRoutesOf } from '@smsauth/service-kit';
import { Router } from 'express';
import { buildIdentityOpenApiDocument, type IdentityOpenApiOptions } from './document';
import { openApiOperation } from './operation';

export { toOpenApiPath } from '@smsauth/service-kit';
export { buildIdentityOpenApiDocument } from './document';
export { openApiOperation } from './operation';

/** `GET /openapi.json`: the document is built once, when the app is built, from the operations' own declarations. */
export function openApiRouter(options: IdentityOpenApiOptions): Router {
  let document: Record<string, unknown> = {};
  const own = openApiOperation(() => document);
  const router = mountOperations(Router(), [own]);
  document = buildIdentityOpenApiDocument({
    ...options,
    ...(options.operations ? { operations: [...options.operations, own] } : {}),
    ...(options.routes ? { routes: [...options.routes, ...servedRoutesOf(router)] } : {}),
  });
  return router;
}

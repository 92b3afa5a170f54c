import { Router } from 'express';
import { buildIdentityOpenApiDocument, type IdentityOpenApiOptions } from './document';

export { toOpenApiPath } from '@smsauth/service-kit';
export { buildIdentityOpenApiDocument } from './document';

/** `GET /openapi.json`: the document is built once, when the app is built, from the routes' own schemas. */
export function openApiRouter(options: IdentityOpenApiOptions): Router {
  const document = buildIdentityOpenApiDocument(options);
  const router = Router();
  router.get('/openapi.json', (_req, res) => {
    res.json(document);
  });
  return router;
}

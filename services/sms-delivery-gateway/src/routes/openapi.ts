import type { Express } from 'express';

/** `GET /openapi.json`: the document is built once at start, from the running configuration. */
export function mountOpenApiRoute(app: Express, document: Record<string, unknown>): void {
  app.get('/openapi.json', (_req, res) => {
    res.json(document);
  });
}

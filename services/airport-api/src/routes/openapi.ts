import type { RequestHandler } from 'express';

/** GET /openapi.yaml: the document the gateway enforces, placeholders filled (no auth). */
export function openApiDocumentHandler(yaml: string): RequestHandler {
  return (_req, res) => {
    res.type('application/yaml').send(yaml);
  };
}

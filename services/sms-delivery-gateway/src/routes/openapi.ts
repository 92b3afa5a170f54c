import { defineOperation, PROBES_TAG, type Operation } from '@smsauth/service-kit';

/** `GET /openapi.json`: the document is built once at start, from the running configuration's operations. */
export function openApiOperation(document: () => Record<string, unknown>): Operation {
  return defineOperation({
    method: 'get',
    path: '/openapi.json',
    operationId: 'openApiDocument',
    tags: [PROBES_TAG],
    summary: 'This document (OpenAPI 3.1), as the running configuration shapes it',
    responses: { '200': { description: 'The document.', jsonSchema: { type: 'object' } } },
    handle: () => document(),
  });
}

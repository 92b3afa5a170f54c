import { defineOperation, type Operation } from '@smsauth/service-kit';

/** `GET /openapi.json`, answering `document()`. */
export function openApiOperation(document: () => Record<string, unknown>): Operation {
  return defineOperation({
    method: 'get',
    path: '/openapi.json',
    operationId: 'openApiDocument',
    tags: ['Discovery'],
    summary: 'This document',
    responses: { '200': { description: 'OpenAPI 3.1 document.', jsonSchema: { type: 'object' } } },
    handle: () => document(),
  });
}

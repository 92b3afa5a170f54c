import { checkResponses, type OpenApiDocument } from '../src/openapi-recorder';

// The checker the suite's setup runs on every identity response: it must fail on an
// undocumented status, an undocumented field and a wrong type, and pass a documented answer.
const document: OpenApiDocument = {
  paths: {
    '/things/{id}': {
      get: {
        responses: {
          '200': {
            content: {
              'application/json': {
                schema: { type: 'object', required: ['id'], additionalProperties: false, properties: { id: { type: 'string' } } },
              },
            },
          },
        },
      },
      delete: { responses: { '204': { description: 'gone' } } },
    },
  },
};

const response = (status: number, body: string, method = 'GET') => ({
  method,
  url: 'http://identity.test/things/abc',
  status,
  contentType: 'application/json; charset=utf-8',
  body,
});

describe('checking responses against an OpenAPI document', () => {
  it('passes documented responses', async () => {
    expect(await checkResponses(document, [response(200, '{"id":"abc"}'), response(204, '', 'DELETE')])).toEqual([]);
  });

  it('fails an undocumented status, an undocumented field, a wrong type and an unknown operation', async () => {
    const problems = await checkResponses(document, [
      response(500, '{"error":"server_error"}'),
      response(200, '{"id":"abc","secret":"x"}'),
      response(200, '{"id":1}'),
      response(200, '{}', 'PATCH'),
      response(204, '{"id":"abc"}', 'DELETE'),
    ]);
    expect(problems).toEqual([
      expect.stringContaining('status not documented'),
      expect.stringContaining('must NOT have additional properties'),
      expect.stringContaining('must be string'),
      expect.stringContaining('no such operation'),
      expect.stringContaining('documented without a body'),
    ]);
  });
});

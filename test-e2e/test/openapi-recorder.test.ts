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
    '/page': {
      get: {
        responses: {
          '400': {
            content: {
              'text/html': { schema: { type: 'string' } },
              'application/json': { schema: { type: 'object', required: ['error'], properties: { error: { type: 'string' } } } },
            },
          },
        },
      },
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

  it('checks an answer documented in two media types as the one it came in', async () => {
    const page = (contentType: string, body: string) => ({ method: 'GET', url: 'http://identity.test/page', status: 400, contentType, body });
    expect(await checkResponses(document, [page('text/html; charset=utf-8', '<p>Bad request</p>'), page('application/json', '{"error":"invalid_request"}')])).toEqual([]);
    const problems = await checkResponses(document, [page('application/json', '{"message":"no error field"}'), page('text/plain', 'Bad request')]);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/body does not match the document/);
    expect(problems[1]).toMatch(/documented as JSON, got text\/plain/);
  });
});

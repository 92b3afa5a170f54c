import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fuzzOpenApi, fuzzReport, fuzzSettings } from '../src';

/** One operation, GET /things/{id}?size=..., answering a `{name: string}` object. */
const DOCUMENT = {
  openapi: '3.1.0',
  info: { title: 'things', version: '1' },
  paths: {
    '/things/{id}': {
      get: {
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^[a-z]{1,8}$' } },
          { name: 'size', in: 'query', required: true, schema: { type: 'integer', minimum: 1, maximum: 9 } },
        ],
        responses: {
          '200': {
            description: 'The thing.',
            content: { 'application/json': { schema: { type: 'object', required: ['name'], properties: { name: { type: 'string' } }, additionalProperties: false } } },
          },
        },
      },
    },
  },
};

/** A service whose answer the test chooses, recording the paths it was asked for. */
async function serve(answer: (path: string) => { status: number; body: string; type?: string }) {
  const paths: string[] = [];
  const server = http.createServer((req, res) => {
    paths.push(req.url ?? '');
    const { status, body, type = 'application/json' } = answer(req.url ?? '');
    res.writeHead(status, { 'content-type': type }).end(body);
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { baseUrl, paths, close: () => new Promise((resolve) => server.close(resolve)) };
}

describe('the OpenAPI fuzzer', () => {
  it('finds nothing when every answer keeps to the document', async () => {
    const service = await serve(() => ({ status: 200, body: '{"name":"a"}' }));
    const { findings, statuses } = await fuzzOpenApi({ baseUrl: service.baseUrl, document: DOCUMENT, seed: 7, runs: 20 });
    await service.close();
    expect(findings).toEqual([]);
    expect(statuses).toEqual({ '200': 20 });
  });

  it.each([
    ['a 5xx', { status: 500, body: '{"error":"server_error"}' }, /a 500/],
    ['a status the operation does not list', { status: 418, body: '{}' }, /status 418 is not among the documented 200/],
    ['a body its schema refuses', { status: 200, body: '{"name":1,"extra":true}' }, /a body its schema refuses \(.*additionalProperty.*\/name must be string/],
    ['another content type', { status: 200, body: '<p>hi</p>', type: 'text/html' }, /content type text\/html where the document says application\/json/],
  ])('reports %s, naming the request', async (_name, answer, problem) => {
    const service = await serve(() => answer);
    const { findings } = await fuzzOpenApi({ baseUrl: service.baseUrl, document: DOCUMENT, seed: 7, runs: 5 });
    await service.close();
    expect(findings).toHaveLength(5);
    expect(findings[0]!.problem).toMatch(problem);
    expect(findings[0]!.request.path).toMatch(/^\/things\/[^/?]+\?size=/);
    expect(fuzzReport(findings, 7)).toMatch(/seed 7; replay: FUZZ_SEED=7/);
  });

  describe('refusals of requests the document allows', () => {
    /** Refuses size 9 with a 400, a rule the document (1..9) does not state. */
    const refusingNine = (path: string) =>
      /size=9(&|$)/.test(path) ? { status: 400, body: '{"error":"invalid_request","error_description":"size: must be below 9"}' } : { status: 200, body: '{"name":"a"}' };
    const withRefusal = { ...DOCUMENT, paths: { '/things/{id}': { get: { ...DOCUMENT.paths['/things/{id}'].get, responses: { ...DOCUMENT.paths['/things/{id}'].get.responses, '400': { description: 'Refused.' } } } } } };

    it('reports a 400 to a request every part of which keeps to the schemas: a rule the document does not state', async () => {
      const service = await serve(refusingNine);
      const { findings } = await fuzzOpenApi({ baseUrl: service.baseUrl, document: withRefusal, seed: 3, runs: 200 });
      await service.close();
      const unstated = findings.filter((f) => /refused by a rule it does not state/.test(f.problem));
      expect(unstated.length).toBeGreaterThan(0);
      expect(unstated.every((f) => /size=9(&|$)/.test(f.request.path) && f.request.allowed)).toBe(true);
      expect(unstated[0]!.problem).toContain('size: must be below 9');
    });

    it('accepts such a refusal when the suite names it as documented in words, for that operation and answer only', async () => {
      const service = await serve(refusingNine);
      const documented = { operation: 'GET /things/{id}', answer: /size: must be below 9/, reason: 'stated in the description' };
      const { findings } = await fuzzOpenApi({ baseUrl: service.baseUrl, document: withRefusal, seed: 3, runs: 200, documentedRefusals: [documented] });
      const { findings: otherAnswer } = await fuzzOpenApi({
        baseUrl: service.baseUrl,
        document: withRefusal,
        seed: 3,
        runs: 200,
        documentedRefusals: [{ ...documented, answer: /something else/ }],
      });
      await service.close();
      expect(findings).toEqual([]);
      expect(otherAnswer.length).toBeGreaterThan(0);
    });
  });

  it('reads a Swagger 2.0 document: parameter keywords as schemas, responses by what the operation produces', async () => {
    const swagger = {
      swagger: '2.0',
      info: { title: 'things', version: '1' },
      basePath: '/v1',
      produces: ['text/plain'],
      paths: { '/things': { get: { parameters: [{ name: 'code', in: 'query', required: true, type: 'string', pattern: '^[A-Z]{3}$' }], responses: { '200': { description: 'ok', schema: { type: 'string' } } } } } },
    };
    const service = await serve(() => ({ status: 200, body: 'a thing', type: 'text/plain' }));
    const { findings } = await fuzzOpenApi({ baseUrl: service.baseUrl, document: swagger, seed: 5, runs: 20 });
    const json = await fuzzOpenApi({ baseUrl: service.baseUrl, document: { ...swagger, produces: ['application/json'] }, seed: 5, runs: 3 });
    await service.close();
    expect(findings).toEqual([]);
    expect(service.paths.every((path) => path.startsWith('/v1/things?code='))).toBe(true);
    expect(json.findings[0]!.problem).toMatch(/content type text\/plain where the document says application\/json/);
  });

  it('sends the same requests for the same seed, and others for another', async () => {
    const service = await serve(() => ({ status: 200, body: '{"name":"a"}' }));
    await fuzzOpenApi({ baseUrl: service.baseUrl, document: DOCUMENT, seed: 11, runs: 15 });
    const first = service.paths.splice(0);
    await fuzzOpenApi({ baseUrl: service.baseUrl, document: DOCUMENT, seed: 11, runs: 15 });
    const again = service.paths.splice(0);
    await fuzzOpenApi({ baseUrl: service.baseUrl, document: DOCUMENT, seed: 12, runs: 15 });
    const other = service.paths.splice(0);
    await service.close();
    expect(again).toEqual(first);
    expect(other).not.toEqual(first);
  });

  it('takes its seed and run count from FUZZ_SEED and FUZZ_RUNS, and refuses values that are not integers', () => {
    expect(fuzzSettings(400, { FUZZ_SEED: '42', FUZZ_RUNS: '3' })).toEqual({ seed: 42, runs: 3 });
    expect(fuzzSettings(400, {}).runs).toBe(400);
    // The soak's settings: its seed, and its runs scaled as property runs are (60 is 1x).
    expect(fuzzSettings(400, { FC_SEED: '9', FC_NUM_RUNS: '300' })).toEqual({ seed: 9, runs: 2000 });
    expect(() => fuzzSettings(400, { FUZZ_SEED: 'soon' })).toThrow(/FUZZ_SEED must be an integer/);
    expect(() => fuzzSettings(400, { FUZZ_RUNS: '0' })).toThrow(/FUZZ_RUNS must be a positive integer/);
  });
});

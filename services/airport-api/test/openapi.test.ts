import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { createLogger, loadConfig } from '@smsauth/service-kit';
import Ajv from 'ajv';
import request from 'supertest';
import { parse as parseYaml } from 'yaml';
import { buildApp } from '../src/app';
import { configSchema } from '../src/config';
import { FakeIdentity } from './support/identity';

const NOW = Date.UTC(2031, 5, 1, 8, 0, 0);
const logger = createLogger({ name: 'test', level: 'silent' });

describe('OpenAPI document', () => {
  let identity: FakeIdentity;

  beforeAll(async () => {
    identity = await FakeIdentity.start();
  });
  afterAll(async () => {
    await identity.close();
  });

  it('serves the rendered document at /openapi.yaml without a token', async () => {
    const config = loadConfig(configSchema, { AUTH_URL: `${identity.authUrl}/`, API_AUDIENCE: 'https://airports.example.org' });
    const { app } = buildApp({ config, logger });
    const res = await request(app).get('/openapi.yaml');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/yaml/);
    const document = parseYaml(res.text);
    expect(document.swagger).toBe('2.0');
    expect(document.info.title).toBe('Airport Codes');
    const operation = document.paths['/airportName'].get;
    expect(operation.operationId).toBe('airportName');
    expect(operation.parameters).toEqual([
      { name: 'iataCode', in: 'query', required: true, type: 'string', pattern: '^[A-Za-z]{3}$', description: expect.any(String) },
    ]);
    expect(Object.keys(operation.responses)).toEqual(['200', '400', '401']);
    expect(operation.responses['401'].schema).toEqual({ $ref: '#/definitions/RpcStatus' });
    expect(operation.security).toEqual([{ identity_jwt: [] }]);
    expect(document.securityDefinitions.identity_jwt).toEqual({
      type: 'oauth2',
      flow: 'implicit',
      authorizationUrl: `${identity.authUrl}/authorize`,
      'x-google-issuer': `${identity.authUrl}/`,
      'x-google-jwks_uri': `${identity.authUrl}/.well-known/jwks.json`,
      'x-google-audiences': 'https://airports.example.org',
    });
  });

  it('enforces the audience filled from API_AUDIENCE', async () => {
    const config = loadConfig(configSchema, { AUTH_URL: identity.authUrl, API_AUDIENCE: 'https://airports.example.org' });
    const { app } = buildApp({ config, logger, clock: { now: () => new Date(NOW) } });
    const ours = identity.token(NOW, { aud: 'https://airports.example.org' });
    expect((await request(app).get('/airportName?iataCode=SFO').set('Authorization', `Bearer ${ours}`)).status).toBe(200);
    const defaultAudience = identity.token(NOW);
    expect((await request(app).get('/airportName?iataCode=SFO').set('Authorization', `Bearer ${defaultAudience}`)).status).toBe(401);
  });

  it('uses OPENAPI_FILE instead of the bundled document, placeholders filled', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'openapi-'));
    const file = join(dir, 'openapi.yaml');
    writeFileSync(
      file,
      [
        'swagger: "2.0"',
        'info: { title: Airport Codes (open), version: 2.0.0 }',
        'x-auth-url: "${AUTH_URL}"',
        'paths:',
        '  /airportName:',
        '    get: { operationId: airportName }',
      ].join('\n'),
    );
    const config = loadConfig(configSchema, { AUTH_URL: identity.authUrl, OPENAPI_FILE: file });
    const { app } = buildApp({ config, logger });
    const served = parseYaml((await request(app).get('/openapi.yaml')).text);
    expect(served.info.title).toBe('Airport Codes (open)');
    expect(served['x-auth-url']).toBe(identity.authUrl);
    const res = await request(app).get('/airportName?iataCode=BOS');
    expect(res.status).toBe(200);
    expect(res.text).toBe('Logan International Airport');
  });

  it('is a valid Swagger 2.0 document whose 401 schema is the body the gateway layer answers', async () => {
    const config = loadConfig(configSchema, { AUTH_URL: identity.authUrl, API_AUDIENCE: 'https://airports.example.org' });
    const { app } = buildApp({ config, logger, clock: { now: () => new Date(NOW) } });
    const document = parseYaml((await request(app).get('/openapi.yaml')).text);
    await SwaggerParser.validate(structuredClone(document));
    const validate401 = new Ajv({ strict: false }).compile(document.definitions.RpcStatus);
    for (const authorization of [undefined, 'Bearer not-a-jwt', `Bearer ${identity.token(NOW - 7_200_000)}`]) {
      const call = request(app).get('/airportName?iataCode=SFO');
      const res = await (authorization ? call.set('Authorization', authorization) : call);
      expect(res.status).toBe(401);
      expect(validate401(res.body)).toBe(true);
      expect(res.body.code).toBe(16);
      expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    }
  });

  it("declares iataCode's pattern, the rule whose breach the operation answers with 400", async () => {
    const config = loadConfig(configSchema, { AUTH_URL: identity.authUrl, API_AUDIENCE: 'https://airports.example.org' });
    const { app } = buildApp({ config, logger, clock: { now: () => new Date(NOW) } });
    const document = parseYaml((await request(app).get('/openapi.yaml')).text);
    const pattern = new RegExp(document.paths['/airportName'].get.parameters[0].pattern);
    const token = identity.token(NOW, { aud: 'https://airports.example.org' });
    for (const code of ['SF', 'SFOO', 'S1O', 'sfo']) {
      const res = await request(app).get(`/airportName?iataCode=${code}`).set('Authorization', `Bearer ${token}`);
      expect(res.status === 400 && /Invalid IATA code/.test(res.text)).toBe(!pattern.test(code));
    }
  });

  it('refuses to start with an OPENAPI_FILE that is missing', () => {
    const config = loadConfig(configSchema, { AUTH_URL: identity.authUrl, OPENAPI_FILE: '/nonexistent/openapi.yaml' });
    expect(() => buildApp({ config, logger })).toThrow(/OpenAPI file \/nonexistent\/openapi.yaml/);
  });
});

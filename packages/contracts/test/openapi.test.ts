import { OpenApi2DocumentSchema, SecurityDefinitionSchema, readSecurityExtensions } from '../src';
import { securityDefinitionExample } from './examples';
import { issuePaths } from './helpers';

describe('SecurityDefinitionSchema', () => {
  it('accepts the security definition the spec shows', () => {
    expect(SecurityDefinitionSchema.parse(securityDefinitionExample)).toEqual(securityDefinitionExample);
  });

  it.each(['x-google-issuer', 'x-google-jwks_uri', 'x-google-audiences'])('rejects a definition without %s', (key) => {
    const { [key]: _removed, ...rest } = securityDefinitionExample as Record<string, unknown>;
    expect(issuePaths(SecurityDefinitionSchema.safeParse(rest))).toEqual([[key]]);
  });

  it('rejects a definition without any vendor extension', () => {
    const definition = { type: 'oauth2', flow: 'implicit', authorizationUrl: 'https://auth.example.com/authorize' };
    expect(issuePaths(SecurityDefinitionSchema.safeParse(definition))).toEqual([[]]);
  });

  it('rejects extensions of two vendor words', () => {
    const definition = { ...securityDefinitionExample, 'x-aws-issuer': 'https://auth.example.com/' };
    expect(SecurityDefinitionSchema.safeParse(definition).success).toBe(false);
  });

  it.each([
    ['a jwks_uri that is not http(s)', { 'x-google-jwks_uri': 'file:///jwks.json' }, ['x-google-jwks_uri']],
    ['an audiences list of only commas', { 'x-google-audiences': ' , ' }, ['x-google-audiences']],
    ['an empty issuer', { 'x-google-issuer': '' }, ['x-google-issuer']],
    [
      'a jwt location with both header and query',
      { 'x-google-jwt-locations': [{ header: 'Authorization', query: 'access_token' }] },
      ['x-google-jwt-locations', 0],
    ],
    [
      'a value_prefix on a query location',
      { 'x-google-jwt-locations': [{ query: 'access_token', value_prefix: 'Bearer ' }] },
      ['x-google-jwt-locations', 0, 'value_prefix'],
    ],
    ['a type other than oauth2', { type: 'apiKey' }, ['type']],
    ['a flow other than implicit', { flow: 'password' }, ['flow']],
  ])('rejects %s', (_rule, changes, path) => {
    expect(issuePaths(SecurityDefinitionSchema.safeParse({ ...securityDefinitionExample, ...changes }))).toEqual([path]);
  });
});

describe('readSecurityExtensions', () => {
  it('reads the google extensions of the spec example', () => {
    expect(readSecurityExtensions(securityDefinitionExample)).toEqual({
      vendor: 'google',
      issuer: 'https://auth.example.com/',
      jwksUri: 'https://auth.example.com/.well-known/jwks.json',
      audiences: ['https://airports.example.com'],
    });
  });

  it('reads extensions of another vendor word, splitting and trimming audiences', () => {
    const definition = {
      type: 'oauth2',
      flow: 'implicit',
      authorizationUrl: 'https://auth.example.com/authorize',
      'x-acme2-issuer': 'https://auth.example.com/',
      'x-acme2-jwks_uri': 'http://localhost:4000/.well-known/jwks.json',
      'x-acme2-audiences': ' https://a ,https://b,, ',
      'x-acme2-jwt-locations': [{ header: 'Authorization', value_prefix: 'Bearer ' }, { query: 'access_token' }],
    };
    expect(readSecurityExtensions(definition)).toEqual({
      vendor: 'acme2',
      issuer: 'https://auth.example.com/',
      jwksUri: 'http://localhost:4000/.well-known/jwks.json',
      audiences: ['https://a', 'https://b'],
      jwtLocations: [{ header: 'Authorization', value_prefix: 'Bearer ' }, { query: 'access_token' }],
    });
  });

  it('throws on an invalid definition', () => {
    expect(() => readSecurityExtensions({ type: 'oauth2' })).toThrow();
  });
});

describe('OpenApi2DocumentSchema', () => {
  const document = {
    swagger: '2.0',
    info: { title: 'Airport Codes', description: 'Get the name of an airport', version: '1.0.0' },
    host: 'airports.example.com',
    schemes: ['https'],
    produces: ['application/json'],
    paths: {
      '/airportName': {
        get: {
          operationId: 'airportName',
          parameters: [{ name: 'iataCode', in: 'query', required: true, type: 'string' }],
          security: [{ auth: [] }],
          responses: { '200': { description: 'Success.', schema: { type: 'string' } } },
        },
      },
    },
    securityDefinitions: {
      auth: securityDefinitionExample,
      api_key: { type: 'apiKey', name: 'key', in: 'query' },
    },
  };

  it('accepts a real-world document with extra fields and non-JWT schemes', () => {
    expect(OpenApi2DocumentSchema.parse(document)).toEqual(document);
  });

  it('rejects a document that is not swagger 2.0', () => {
    expect(issuePaths(OpenApi2DocumentSchema.safeParse({ ...document, swagger: '3.0.0' }))).toEqual([['swagger']]);
  });
});

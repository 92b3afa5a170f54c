import { loadConfig, secretVariablesOf } from '@smsauth/service-kit';
import { configSchema } from '../src/config';

describe('airport-api configuration', () => {
  it('holds no secret (it verifies tokens with the public JWKS), so no <NAME>_FILE variable applies to it', () => {
    expect(secretVariablesOf(configSchema)).toEqual([]);
    // OPENAPI_FILE and AIRPORTS_FILE are its own variables (paths of documents), not secret files.
    expect(loadConfig(configSchema, { AUTH_URL: 'https://auth.example.com/', OPENAPI_FILE: '/etc/airport/openapi.yaml' })).toMatchObject({
      AUTH_URL: 'https://auth.example.com',
      OPENAPI_FILE: '/etc/airport/openapi.yaml',
    });
  });
});

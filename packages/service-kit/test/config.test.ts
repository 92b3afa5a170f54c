import { z } from 'zod';
import { apiDocsEnabled, ConfigError, env, loadConfig } from '../src';

const schema = z.object({
  PORT: env.port(4000),
  LOG_LEVEL: env.logLevel(),
  FEATURE: env.boolean(false),
  TRUST_PROXY: env.trustProxy(),
  UPSTREAM_URL: env.url().optional(),
});

describe('env.optionalString', () => {
  it('reads an empty value as absent and keeps any other', () => {
    const optional = z.object({ NAME: env.optionalString() });
    expect(loadConfig(optional, { NAME: '' })).toEqual({ NAME: undefined });
    expect(loadConfig(optional, {})).toEqual({ NAME: undefined });
    expect(loadConfig(optional, { NAME: 'x' })).toEqual({ NAME: 'x' });
  });
});

describe('env.logFormat', () => {
  const schema = z.object({ LOG_FORMAT: env.logFormat() });

  it('reads json and pretty, and leaves the choice to the logger when unset or empty', () => {
    expect(loadConfig(schema, { LOG_FORMAT: 'json' })).toEqual({ LOG_FORMAT: 'json' });
    expect(loadConfig(schema, { LOG_FORMAT: 'pretty' })).toEqual({ LOG_FORMAT: 'pretty' });
    expect(loadConfig(schema, {}).LOG_FORMAT).toBeUndefined();
    expect(loadConfig(schema, { LOG_FORMAT: '' }).LOG_FORMAT).toBeUndefined();
  });

  it('refuses any other value, naming the variable', () => {
    expect(() => loadConfig(schema, { LOG_FORMAT: 'text' })).toThrow(new ConfigError(['LOG_FORMAT: must be json or pretty']));
  });
});

describe('loadConfig', () => {
  it('applies defaults when variables are absent', () => {
    expect(loadConfig(schema, {})).toEqual({ PORT: 4000, LOG_LEVEL: 'info', FEATURE: false, TRUST_PROXY: false });
  });

  it('coerces string values into typed ones', () => {
    const config = loadConfig(schema, { PORT: '8080', FEATURE: 'true', TRUST_PROXY: '2', UPSTREAM_URL: 'https://x.example/' });
    expect(config).toMatchObject({ PORT: 8080, FEATURE: true, TRUST_PROXY: 2, UPSTREAM_URL: 'https://x.example/' });
  });

  it('names every bad variable and why', () => {
    let caught: unknown;
    try {
      loadConfig(schema, { PORT: 'eighty', LOG_LEVEL: 'loud', UPSTREAM_URL: 'ftp://x' });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const problems = (caught as ConfigError).problems;
    expect(problems).toHaveLength(3);
    expect(problems.some((p) => p.startsWith('PORT: '))).toBe(true);
    expect(problems.some((p) => p.startsWith('LOG_LEVEL: '))).toBe(true);
    expect(problems.some((p) => p.startsWith('UPSTREAM_URL: '))).toBe(true);
    expect((caught as Error).message).toContain('PORT');
  });

  it('keeps a list of addresses as the trust-proxy value', () => {
    expect(loadConfig(schema, { TRUST_PROXY: 'loopback, 10.0.0.0/8' }).TRUST_PROXY).toBe('loopback, 10.0.0.0/8');
  });
});

describe('env.apiDocs and apiDocsEnabled', () => {
  const schema = z.object({ NODE_ENV: env.nodeEnv(), API_DOCS: env.apiDocs() });
  const enabled = (vars: Record<string, string>) => apiDocsEnabled(loadConfig(schema, vars));

  it('reads true and false, and leaves an unset or empty value undecided', () => {
    expect(loadConfig(schema, { API_DOCS: 'true' }).API_DOCS).toBe(true);
    expect(loadConfig(schema, { API_DOCS: 'false' }).API_DOCS).toBe(false);
    expect(loadConfig(schema, {}).API_DOCS).toBeUndefined();
    expect(loadConfig(schema, { API_DOCS: '' }).API_DOCS).toBeUndefined();
  });

  it('is on by default outside production and off in production', () => {
    expect(enabled({})).toBe(true);
    expect(enabled({ NODE_ENV: 'development' })).toBe(true);
    expect(enabled({ NODE_ENV: 'test' })).toBe(true);
    expect(enabled({ NODE_ENV: 'production' })).toBe(false);
  });

  it('lets API_DOCS win over NODE_ENV either way', () => {
    expect(enabled({ NODE_ENV: 'production', API_DOCS: 'true' })).toBe(true);
    expect(enabled({ NODE_ENV: 'development', API_DOCS: 'false' })).toBe(false);
  });

  it('refuses any other value, naming the variable', () => {
    expect(() => loadConfig(schema, { API_DOCS: 'on' })).toThrow(new ConfigError(['API_DOCS: must be true or false']));
  });
});

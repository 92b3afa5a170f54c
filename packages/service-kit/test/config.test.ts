import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { apiDocsEnabled, ConfigError, env, environmentVariablesOf, loadConfig, renderEnvironmentTable, secretVariablesOf } from '../src';

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

describe('secrets from files (<NAME>_FILE)', () => {
  const SECRET = 'file-secret-value-0123456789-abcdefghijklmnop';
  const schema = z
    .object({
      PORT: env.port(4000),
      API_TOKEN: env
        .optionalString()
        .pipe(z.string().min(32, { message: 'must be at least 32 characters' }).optional())
        .meta({ secret: true, description: 'A token.' }),
      DATABASE_URL: z.string().default('memory://').meta({ secret: true, description: 'Where the data is.' }),
      PLAIN: env.optionalString().meta({ description: 'Not a secret.' }),
    })
    .transform((config) => ({ ...config, derived: true }));

  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'smsauth-config-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, content: string) => {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  };
  const problemsOf = (vars: Record<string, string | undefined>): string[] => {
    try {
      loadConfig(schema, vars);
    } catch (err) {
      if (err instanceof ConfigError) return err.problems;
      throw err;
    }
    return [];
  };

  it('finds the variables the schema marks secret, through its refinements and transforms', () => {
    expect(secretVariablesOf(schema)).toEqual(['API_TOKEN', 'DATABASE_URL']);
    expect(secretVariablesOf(z.string())).toEqual([]);
  });

  it('reads a secret from the file <NAME>_FILE names, its trailing newline removed (as Docker secrets have one)', () => {
    const config = loadConfig(schema, { API_TOKEN_FILE: file('token', `${SECRET}\n`), DATABASE_URL_FILE: file('db', 'postgres://u:p@db/x\r\n') });
    expect(config).toEqual({ PORT: 4000, API_TOKEN: SECRET, DATABASE_URL: 'postgres://u:p@db/x', PLAIN: undefined, derived: true });
  });

  it('keeps other whitespace of the file, and the value as is without a newline', () => {
    expect(loadConfig(schema, { API_TOKEN_FILE: file('spaces', ` ${SECRET} `) }).API_TOKEN).toBe(` ${SECRET} `);
    expect(loadConfig(schema, { API_TOKEN_FILE: file('bare', SECRET) }).API_TOKEN).toBe(SECRET);
  });

  it('reads <NAME>_FILE only for secrets', () => {
    expect(loadConfig(schema, { PLAIN_FILE: file('plain', 'from a file\n') }).PLAIN).toBeUndefined();
  });

  it('takes an empty <NAME>_FILE as unset, and an empty <NAME> beside a <NAME>_FILE as unset too (VAR= in a compose file)', () => {
    expect(loadConfig(schema, { API_TOKEN: SECRET, API_TOKEN_FILE: '' }).API_TOKEN).toBe(SECRET);
    expect(loadConfig(schema, { API_TOKEN: '', API_TOKEN_FILE: file('token2', `${SECRET}\n`) }).API_TOKEN).toBe(SECRET);
  });

  it('refuses <NAME> and <NAME>_FILE both set, naming both and neither value', () => {
    const path = file('both', `${SECRET}\n`);
    const problems = problemsOf({ API_TOKEN: 'the-other-secret-value-0123456789-abcdef', API_TOKEN_FILE: path });
    expect(problems).toEqual([
      'API_TOKEN, API_TOKEN_FILE: both are set; set API_TOKEN to the value or API_TOKEN_FILE to a file holding it, not both',
    ]);
  });

  it('refuses a missing file, naming the variable and path, and says nothing else about that secret', () => {
    const path = join(dir, 'missing');
    expect(problemsOf({ API_TOKEN_FILE: path })).toEqual([`API_TOKEN_FILE: cannot read ${path}: no such file (ENOENT)`]);
  });

  it('refuses an empty file and a directory', () => {
    const empty = file('empty', '\n');
    expect(problemsOf({ API_TOKEN_FILE: empty })).toEqual([`API_TOKEN_FILE: ${empty} is empty`]);
    expect(problemsOf({ API_TOKEN_FILE: dir })).toEqual([`API_TOKEN_FILE: cannot read ${dir}: it is a directory (EISDIR)`]);
  });

  // Root reads any file, whatever its mode: there the case cannot be made.
  (process.getuid?.() === 0 ? it.skip : it)('refuses an unreadable file without its content', () => {
    const path = file('unreadable', `${SECRET}\n`);
    chmodSync(path, 0o000);
    const problems = problemsOf({ API_TOKEN_FILE: path });
    expect(problems).toEqual([`API_TOKEN_FILE: cannot read ${path}: permission denied (EACCES)`]);
  });

  it('names the file variable when the value read from it is bad, never the value', () => {
    const problems = problemsOf({ API_TOKEN_FILE: file('short', 'short-secret\n'), PORT: 'eighty' });
    expect(problems).toHaveLength(2);
    expect(problems).toContain('API_TOKEN (read from API_TOKEN_FILE): must be at least 32 characters');
    expect(problems.join('\n')).not.toContain('short-secret');
  });

  it('refuses a schema that declares <NAME>_FILE for a secret itself', () => {
    const clash = z.object({ KEY: z.string().optional().meta({ secret: true, description: 'k' }), KEY_FILE: z.string().optional() });
    expect(() => loadConfig(clash, {})).toThrow('KEY is a secret, so KEY_FILE names its file; the schema may not declare KEY_FILE itself');
  });

  it('documents each secret with its _FILE twin', () => {
    expect(environmentVariablesOf(schema).map((row) => [row.name, row.secret])).toEqual([
      ['PORT', false],
      ['API_TOKEN', true],
      ['DATABASE_URL', true],
      ['PLAIN', false],
    ]);
    const table = renderEnvironmentTable(schema);
    expect(table).toContain('| `API_TOKEN` or `API_TOKEN_FILE` | unset | A token. |');
    expect(table).toContain('| `PLAIN` | unset | Not a secret. |');
  });

  describe('in a service started by runService', () => {
    const run = (vars: Record<string, string>) =>
      new Promise<{ code: number | null; output: string }>((resolve) => {
        const fixtures = join(__dirname, 'fixtures');
        const child = spawn(process.execPath, ['-C', '@smsauth/source', '-r', join(fixtures, 'ts-register.js'), join(fixtures, 'secret-service.ts')], {
          env: { PATH: process.env.PATH, LOG_FORMAT: 'json', ...vars },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let output = '';
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
        child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
        child.on('close', (code) => resolve({ code, output }));
      });

    it('gets the secret from its file and never writes it to a log line, even when the whole config is logged', async () => {
      const { output } = await run({ API_TOKEN_FILE: file('service-token', `${SECRET}\n`) });
      const configured = output
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { msg: string; config?: Record<string, unknown> })
        .find((line) => line.msg === 'configured');
      expect(configured?.config).toMatchObject({ PORT: 0, API_TOKEN: '[REDACTED]' });
      expect(output).not.toContain(SECRET);
    });

    it('refuses to start with both set, naming both, printing neither value', async () => {
      const { code, output } = await run({ API_TOKEN: 'value-in-the-environment', API_TOKEN_FILE: file('service-both', `${SECRET}\n`) });
      expect(code).toBe(1);
      expect(output).toContain('API_TOKEN, API_TOKEN_FILE: both are set');
      expect(output).not.toContain(SECRET);
      expect(output).not.toContain('value-in-the-environment');
    });
  });
});

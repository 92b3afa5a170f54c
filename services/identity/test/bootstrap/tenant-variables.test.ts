import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fillVariables, VariableProblem } from '../../src/domain/tenant/variables';

function problemOf(value: unknown, variables: Record<string, string>): { path: string; problem: string } | undefined {
  try {
    fillVariables(value, variables);
    return undefined;
  } catch (err) {
    if (!(err instanceof VariableProblem)) throw err;
    return { path: err.path.join('.'), problem: err.problem };
  }
}

describe("a tenant file's ${NAME}", () => {
  const dir = mkdtempSync(join(tmpdir(), 'tenant-variables-'));
  const secretFile = join(dir, 'gateway-secret');
  writeFileSync(secretFile, 'from-a-file\n');
  const emptyFile = join(dir, 'empty');
  writeFileSync(emptyFile, '\n');

  it('is the variable, or the file NAME_FILE names without its trailing line break, in strings only', () => {
    const document = { options: { gateway_url: '${URL}/sms', secret: '${SECRET}', totp: { length: 6 } }, list: ['$${LITERAL}', '${URL}'] };
    expect(fillVariables(document, { URL: 'https://gw.example.com', SECRET_FILE: secretFile })).toEqual({
      options: { gateway_url: 'https://gw.example.com/sms', secret: 'from-a-file', totp: { length: 6 } },
      list: ['${LITERAL}', 'https://gw.example.com'],
    });
  });

  it('names the path and the variable when it cannot be filled, never a value', () => {
    expect(problemOf({ a: [{ b: '${MISSING}' }] }, {})).toEqual({ path: 'a.0.b', problem: '${MISSING} is not set (set MISSING, or MISSING_FILE to a file holding the value)' });
    expect(problemOf({ a: '${SECRET}' }, { SECRET: 'in-the-environment', SECRET_FILE: secretFile })).toEqual({ path: 'a', problem: '${SECRET}: SECRET and SECRET_FILE are both set; set one' });
    expect(problemOf({ a: '${SECRET}' }, { SECRET_FILE: emptyFile })).toEqual({ path: 'a', problem: `\${SECRET}: SECRET_FILE ${emptyFile} is empty` });
    expect(problemOf({ a: '${SECRET}' }, { SECRET_FILE: join(dir, 'nope') })).toEqual({ path: 'a', problem: `\${SECRET}: cannot read SECRET_FILE ${join(dir, 'nope')} (ENOENT)` });
    expect(problemOf({ a: '${not a name}' }, {})?.problem).toBe('${not a name} is not a variable name (letters, digits and _; write $${ for a literal ${)');
  });
});

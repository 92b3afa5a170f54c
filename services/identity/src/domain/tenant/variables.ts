import { readFileSync } from 'node:fs';

/** `${NAME}`; `$${` stands for a literal `${`. */
const REFERENCE = /\$(\$?)\{([^}]*)\}/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A `${NAME}` that cannot be filled: where (path inside the document) and why. */
export class VariableProblem extends Error {
  constructor(
    readonly path: ReadonlyArray<string | number>,
    readonly problem: string,
  ) {
    super(problem);
  }
}

const isSet = (value: string | undefined): value is string => value !== undefined && value !== '';

/**
 * NAME's value: the variable, or the file NAME_FILE names (its trailing line breaks dropped, as
 * secret files end with one), with the rules of the services' own secret variables
 * (docs/production.md): not both, not an empty file. A problem never quotes a value.
 */
function valueOf(name: string, variables: Readonly<Record<string, string | undefined>>): string | { problem: string } {
  const value = variables[name];
  const file = variables[`${name}_FILE`];
  if (isSet(value) && isSet(file)) return { problem: `\${${name}}: ${name} and ${name}_FILE are both set; set one` };
  if (isSet(value)) return value;
  if (!isSet(file)) return { problem: `\${${name}} is not set (set ${name}, or ${name}_FILE to a file holding the value)` };
  let text: string;
  try {
    text = readFileSync(file, 'utf8').replace(/(\r?\n)+$/, '');
  } catch (err) {
    return { problem: `\${${name}}: cannot read ${name}_FILE ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})` };
  }
  return text === '' ? { problem: `\${${name}}: ${name}_FILE ${file} is empty` } : text;
}

function fill(text: string, path: ReadonlyArray<string | number>, variables: Readonly<Record<string, string | undefined>>): string {
  return text.replace(REFERENCE, (whole, escaped: string, name: string) => {
    if (escaped) return whole.slice(1);
    if (!NAME.test(name)) throw new VariableProblem(path, `\${${name}} is not a variable name (letters, digits and _; write $\${ for a literal \${)`);
    const value = valueOf(name, variables);
    if (typeof value !== 'string') throw new VariableProblem(path, value.problem);
    return value;
  });
}

/**
 * The document with every `${NAME}` in its strings replaced by the variable's value (keys and
 * structure are never touched, so a value cannot add fields). Throws a VariableProblem naming the
 * path of the first string that names a variable that is not set.
 */
export function fillVariables(value: unknown, variables: Readonly<Record<string, string | undefined>>, path: Array<string | number> = []): unknown {
  if (typeof value === 'string') return fill(value, path, variables);
  if (Array.isArray(value)) return value.map((item, index) => fillVariables(item, variables, [...path, index]));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, fillVariables(item, variables, [...path, key])]));
  }
  return value;
}

import fc from 'fast-check';

/** Runs per property: enough to explore, few enough for a loaded 2-core machine. */
export const RUNS = 60;

/**
 * fc.assert with the failing seed and path printed on their own line, so a failure can be
 * replayed with `{ seed, path }` without digging through the shrunk counterexample.
 */
export async function checkProperty<Ts extends [unknown, ...unknown[]]>(
  name: string,
  property: fc.IAsyncPropertyWithHooks<Ts> | fc.IAsyncProperty<Ts>,
  numRuns = RUNS,
): Promise<void> {
  const details = await fc.check(property, { numRuns });
  if (details.failed) {
    console.error(`property "${name}" failed: replay with { seed: ${details.seed}, path: '${details.counterexamplePath}' }`);
    const cause = details.errorInstance instanceof Error ? `\n${details.errorInstance.message}` : '';
    throw new Error(`${fc.defaultReportMessage(details) ?? `property "${name}" failed (seed ${details.seed})`}${cause}`);
  }
}

/** Keys that would pollute a prototype if a handler merged them into a plain object. */
export const POLLUTION_KEYS = ['__proto__', 'constructor', 'prototype'] as const;

/** Raw JSON text with a polluting key as an own key (JSON.stringify would drop `__proto__`). */
export const pollutedJson = (base: Record<string, unknown>, key: string, value: unknown, nested: boolean): string => {
  const inner = `{${JSON.stringify(key)}:${JSON.stringify(value)}}`;
  const extra = nested ? `{"a":{"b":${inner}}}` : inner;
  const baseText = JSON.stringify(base);
  const extraText = extra.slice(1, -1);
  return baseText === '{}' ? `{${extraText}}` : `${baseText.slice(0, -1)},${extraText}}`;
};

/** Object.prototype's own keys now, to prove a request left it untouched. */
export const prototypeSnapshot = (): string[] => Object.getOwnPropertyNames(Object.prototype).sort();

import fc from 'fast-check';

/** Runs per property: enough to explore, few enough for a loaded 2-core machine. */
export const RUNS = 60;

/**
 * How a property run is chosen, from the environment:
 * - FC_NUM_RUNS: runs for a property that uses the default ({@link RUNS}); a property with its
 *   own (smaller) count is scaled by the same factor, so `FC_NUM_RUNS=600` runs ten times as many
 *   cases everywhere. Unset, CI keeps the counts written in the suites.
 * - FC_SEED: the seed of every property (fast-check picks a fresh one per property otherwise).
 * - FC_PATH: with FC_SEED, replays only the (shrunk) counterexample at that path.
 */
export interface PropertySettings {
  numRuns: number;
  seed?: number;
  path?: string;
}

export function propertySettings(numRuns = RUNS, env: NodeJS.ProcessEnv = process.env): PropertySettings {
  const runs = integerSetting(env, 'FC_NUM_RUNS', 1);
  const seed = integerSetting(env, 'FC_SEED', -(2 ** 31));
  const path = env.FC_PATH?.trim() || undefined;
  if (path !== undefined && seed === undefined) throw new Error('FC_PATH replays a counterexample of one seed: set FC_SEED too');
  return {
    numRuns: runs === undefined ? numRuns : Math.max(1, Math.ceil((numRuns * runs) / RUNS)),
    ...(seed !== undefined ? { seed } : {}),
    ...(path !== undefined ? { path } : {}),
  };
}

/**
 * A jest timeout for a test that runs properties, scaled like the runs: FC_NUM_RUNS=600 asks
 * for ten times the work, so the test gets ten times the time. Unset, `ms` as written.
 */
export function propertyTimeout(ms: number, env: NodeJS.ProcessEnv = process.env): number {
  const runs = integerSetting(env, 'FC_NUM_RUNS', 1);
  return runs === undefined ? ms : Math.max(ms, Math.ceil((ms * runs) / RUNS));
}

/**
 * fc.check with the failing seed and path printed on their own line, as the environment that
 * replays them (`FC_SEED=… FC_PATH=…`), so a failure can be rerun without digging through the
 * shrunk counterexample.
 */
export async function checkProperty<Ts extends [unknown, ...unknown[]]>(
  name: string,
  property: fc.IAsyncPropertyWithHooks<Ts> | fc.IAsyncProperty<Ts>,
  numRuns = RUNS,
): Promise<void> {
  const settings = propertySettings(numRuns);
  const details = await fc.check(property, settings);
  if (details.failed) {
    const runs = process.env.FC_NUM_RUNS ? ` FC_NUM_RUNS=${process.env.FC_NUM_RUNS}` : '';
    console.error(
      `property "${name}" failed: replay with { seed: ${details.seed}, path: '${details.counterexamplePath}' }\n` +
        `  counterexample only: FC_SEED=${details.seed} FC_PATH=${details.counterexamplePath}${runs}\n` +
        `  whole run (state built by earlier cases included): FC_SEED=${details.seed}${runs}`,
    );
    const cause = details.errorInstance instanceof Error ? `\n${details.errorInstance.message}` : '';
    throw new Error(`${fc.defaultReportMessage(details) ?? `property "${name}" failed (seed ${details.seed})`}${cause}`);
  }
}

function integerSetting(env: NodeJS.ProcessEnv, name: string, min: number): number | undefined {
  const text = env[name]?.trim();
  if (!text) return undefined;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < min) throw new Error(`${name} must be an integer of at least ${min}, got "${text}"`);
  return value;
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

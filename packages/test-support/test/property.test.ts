import fc from 'fast-check';
import { checkProperty, propertySettings, propertyTimeout, RUNS } from '../src/property';

describe('property settings from the environment', () => {
  it('keeps the counts written in the suites when FC_NUM_RUNS is unset, as CI runs them', () => {
    expect(propertySettings(undefined, {})).toEqual({ numRuns: RUNS });
    expect(propertySettings(20, {})).toEqual({ numRuns: 20 });
    expect(propertyTimeout(5_000, {})).toBe(5_000);
  });

  it('runs a default property FC_NUM_RUNS times and scales smaller counts and timeouts by the same factor', () => {
    const env = { FC_NUM_RUNS: String(RUNS * 10) };
    expect(propertySettings(undefined, env).numRuns).toBe(RUNS * 10);
    expect(propertySettings(15, env).numRuns).toBe(150);
    expect(propertyTimeout(5_000, env)).toBe(50_000);
    // fewer runs never shortens a timeout below the one written in the suite
    expect(propertySettings(15, { FC_NUM_RUNS: '1' }).numRuns).toBe(1);
    expect(propertyTimeout(5_000, { FC_NUM_RUNS: '1' })).toBe(5_000);
  });

  it('passes FC_SEED and FC_PATH to fast-check, negative seeds included', () => {
    expect(propertySettings(undefined, { FC_SEED: '-1670257799', FC_PATH: '13:0' })).toEqual({ numRuns: RUNS, seed: -1670257799, path: '13:0' });
  });

  it('refuses a path without its seed and settings that are not integers', () => {
    expect(() => propertySettings(undefined, { FC_PATH: '13' })).toThrow(/set FC_SEED too/);
    expect(() => propertySettings(undefined, { FC_NUM_RUNS: 'many' })).toThrow(/FC_NUM_RUNS must be an integer/);
    expect(() => propertySettings(undefined, { FC_NUM_RUNS: '0' })).toThrow(/FC_NUM_RUNS/);
    expect(() => propertySettings(undefined, { FC_SEED: '1.5' })).toThrow(/FC_SEED/);
  });
});

describe('checkProperty', () => {
  const saved = { FC_SEED: process.env.FC_SEED, FC_PATH: process.env.FC_PATH, FC_NUM_RUNS: process.env.FC_NUM_RUNS };
  beforeEach(() => {
    for (const name of Object.keys(saved)) delete process.env[name];
  });
  afterAll(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it('prints the environment that replays a failure, and that environment finds the same counterexample', async () => {
    const errors: string[] = [];
    const spy = jest.spyOn(console, 'error').mockImplementation((message: string) => void errors.push(message));
    const property = () => fc.asyncProperty(fc.integer({ min: 0, max: 1000 }), async (n) => expect(n).toBeLessThan(500));
    try {
      const first = await checkProperty('n below 500', property()).catch((err: Error) => err);
      expect(first).toBeInstanceOf(Error);
      const replay = /FC_SEED=(-?\d+) FC_PATH=(\S+)/.exec(errors.join('\n'));
      expect(replay).not.toBeNull();
      const [, seed, path] = replay!;
      const counterexample = /Counterexample: (.*)/.exec((first as Error).message)?.[1];
      expect(counterexample).toBe('[500]');

      process.env.FC_SEED = seed;
      process.env.FC_PATH = path;
      const again = await checkProperty('n below 500', property()).catch((err: Error) => err);
      expect(/Counterexample: (.*)/.exec((again as Error).message)?.[1]).toBe(counterexample);
    } finally {
      spy.mockRestore();
    }
  });
});

import { StackUseGate } from '../src/stack-use-gate';

const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('the gate that keeps a restart from pulling the shared stack from under another suite', () => {
  it('restarts only once the other suites inside have left, and lets a suite that starts meanwhile in after the restart', async () => {
    const gate = new StackUseGate();
    const events: string[] = [];
    await gate.enter(); // the restarting suite
    await gate.enter(); // a suite in the other worker
    const restart = gate.alone(async () => {
      events.push('restart');
    });
    await settled();
    expect(events).toEqual([]);

    const late = gate.enter().then(() => events.push('late suite entered'));
    gate.leave();
    await restart;
    await late;
    expect(events).toEqual(['restart', 'late suite entered']);
  });

  it('restarts at once for a suite that is alone, and for a caller that never entered', async () => {
    const gate = new StackUseGate();
    await gate.enter();
    await expect(gate.alone(async () => 'done')).resolves.toBe('done');
    gate.leave();
    await expect(gate.alone(async () => 'done again')).resolves.toBe('done again');
  });

  it('opens again after a restart that failed', async () => {
    const gate = new StackUseGate();
    await expect(gate.alone(async () => Promise.reject(new Error('exit 1')))).rejects.toThrow('exit 1');
    await expect(Promise.race([gate.enter().then(() => 'entered'), settled().then(() => 'waiting')])).resolves.toBe('entered');
  });
});

import { groupCommit } from '../src/store/group-commit';

/** A write that records each batch and settles only when the test says so. */
function controlledWrite() {
  const batches: string[][] = [];
  const settle: Array<{ resolve(): void; reject(err: unknown): void }> = [];
  const write = (items: readonly string[]) =>
    new Promise<void>((resolve, reject) => {
      batches.push([...items]);
      settle.push({ resolve, reject });
    });
  return { batches, settle, write };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('group commit of standalone inserts', () => {
  it('writes the items handed over in one event-loop turn as one batch, and answers each caller only once it is written', async () => {
    const { batches, settle, write } = controlledWrite();
    const commit = groupCommit(write, 100);
    const answered: string[] = [];
    const a = commit(['a1', 'a2']).then(() => answered.push('a'));
    const b = commit(['b']).then(() => answered.push('b'));
    await turn();
    expect(batches).toEqual([['a1', 'a2', 'b']]);
    expect(answered).toEqual([]);
    settle[0]!.resolve();
    await Promise.all([a, b]);
    expect(answered).toEqual(['a', 'b']);
  });

  it('keeps the items that arrive while a write is under way for one next batch, written as soon as the first settles', async () => {
    const { batches, settle, write } = controlledWrite();
    const commit = groupCommit(write, 100);
    const first = commit(['1']);
    await turn();
    const second = commit(['2']);
    await turn();
    const third = commit(['3']);
    await turn();
    expect(batches).toEqual([['1']]);
    settle[0]!.resolve();
    await first;
    await turn();
    expect(batches).toEqual([['1'], ['2', '3']]);
    settle[1]!.resolve();
    await Promise.all([second, third]);
  });

  it('writes a batch that reaches maxItems at once, even while another write is under way', async () => {
    const { batches, settle, write } = controlledWrite();
    const commit = groupCommit(write, 3);
    const first = commit(['1']);
    await turn();
    const full = commit(['a', 'b', 'c']);
    expect(batches).toEqual([['1'], ['a', 'b', 'c']]);
    settle[0]!.resolve();
    settle[1]!.resolve();
    await Promise.all([first, full]);
  });

  it('rejects exactly the callers of a failed batch and still writes the next one', async () => {
    const { batches, settle, write } = controlledWrite();
    const commit = groupCommit(write, 100);
    const failed = commit(['lost']);
    await turn();
    const next = commit(['kept']);
    await turn();
    settle[0]!.reject(new Error('connection lost'));
    await expect(failed).rejects.toThrow('connection lost');
    await turn();
    expect(batches).toEqual([['lost'], ['kept']]);
    settle[1]!.resolve();
    await expect(next).resolves.toBeUndefined();
  });

  it('does not hold a batch longer than maxWaitMs behind a write that hangs', async () => {
    const { batches, settle, write } = controlledWrite();
    const commit = groupCommit(write, 100, 50);
    void commit(['stuck']);
    await turn();
    const next = commit(['waiting']);
    await turn();
    expect(batches).toEqual([['stuck']]);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(batches).toEqual([['stuck'], ['waiting']]);
    settle[1]!.resolve();
    await expect(next).resolves.toBeUndefined();
    settle[0]!.resolve();
  });

  it('answers an empty hand-over at once without writing', async () => {
    const { batches, write } = controlledWrite();
    await groupCommit(write, 10)([]);
    await turn();
    expect(batches).toEqual([]);
  });
});

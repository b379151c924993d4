import { KeyBatcher } from '../../../src/modules/decide/key-batcher';

/** A loader that records each call and answers with the keys it knows. */
function recordingLoader(known: Record<string, number>) {
  const calls: string[][] = [];
  const loadMany = async (keys: string[]) => {
    calls.push(keys);
    return new Map(keys.filter((key) => key in known).map((key) => [key, known[key]]));
  };
  return { calls, loadMany };
}

describe(KeyBatcher.name, () => {
  it('loads the keys asked for in one turn of the event loop with one call', async () => {
    const { calls, loadMany } = recordingLoader({ a: 1, b: 2, c: 3 });
    const sut = new KeyBatcher(loadMany);
    await expect(Promise.all([sut.load('a'), sut.load('b'), sut.load('c')])).resolves.toEqual([1, 2, 3]);
    expect(calls).toEqual([['a', 'b', 'c']]);
  });

  it('asks for a key once however many callers want it in the same turn', async () => {
    const { calls, loadMany } = recordingLoader({ a: 1 });
    const sut = new KeyBatcher(loadMany);
    await expect(Promise.all([sut.load('a'), sut.load('a')])).resolves.toEqual([1, 1]);
    expect(calls).toEqual([['a']]);
  });

  it('answers null for a key the loader does not return', async () => {
    const sut = new KeyBatcher(recordingLoader({ a: 1 }).loadMany);
    await expect(Promise.all([sut.load('a'), sut.load('missing')])).resolves.toEqual([1, null]);
  });

  it('loads keys asked for in a later turn with a new call', async () => {
    const { calls, loadMany } = recordingLoader({ a: 1, b: 2 });
    const sut = new KeyBatcher(loadMany);
    await sut.load('a');
    await sut.load('b');
    expect(calls).toEqual([['a'], ['b']]);
  });

  it('splits a turn with more keys than the batch size into several calls', async () => {
    const { calls, loadMany } = recordingLoader({ a: 1, b: 2, c: 3 });
    const sut = new KeyBatcher(loadMany, 2);
    await expect(Promise.all(['a', 'b', 'c'].map((key) => sut.load(key)))).resolves.toEqual([1, 2, 3]);
    expect(calls).toEqual([['a', 'b'], ['c']]);
  });

  it('rejects every caller of a failed call and only those', async () => {
    const failure = new Error('database unreachable');
    let call = 0;
    const sut = new KeyBatcher<number>(async (keys) => {
      if (call++ === 0) throw failure;
      return new Map(keys.map((key) => [key, 1]));
    }, 2);
    const results = await Promise.allSettled(['a', 'b', 'c'].map((key) => sut.load(key)));
    expect(results).toEqual([
      { status: 'rejected', reason: failure },
      { status: 'rejected', reason: failure },
      { status: 'fulfilled', value: 1 },
    ]);
  });
});

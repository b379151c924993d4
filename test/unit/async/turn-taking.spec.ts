import { TurnTaking } from '../../../src/common/async/turn-taking';

describe(TurnTaking.name, () => {
  it('runs tasks one at a time, in order', async () => {
    const sut = new TurnTaking();
    const log: string[] = [];
    const task = (name: string) => async () => {
      log.push(`${name} starts`);
      await new Promise((resolve) => setTimeout(resolve, 5));
      log.push(`${name} ends`);
      return name;
    };
    const results = await Promise.all([sut.run(task('a')), sut.run(task('b')), sut.run(task('c'))]);
    expect(results).toEqual(['a', 'b', 'c']);
    expect(log).toEqual(['a starts', 'a ends', 'b starts', 'b ends', 'c starts', 'c ends']);
  });

  it('starts a task from an event-loop turn of its own, never within the microtasks of its caller', async () => {
    const sut = new TurnTaking();
    let started = false;
    const done = sut.run(async () => void (started = true));
    for (let i = 0; i < 20; i++) await Promise.resolve();
    // Requests that arrived meanwhile are served before it: it has not started while only microtasks ran.
    expect(started).toBe(false);
    await done;
    expect(started).toBe(true);
  });

  it('goes on after a task that fails, and gives the failure to its caller alone', async () => {
    const sut = new TurnTaking();
    const failing = sut.run(() => Promise.reject(new Error('redis gone')));
    const next = sut.run(() => Promise.resolve('next'));
    await expect(failing).rejects.toThrow('redis gone');
    await expect(next).resolves.toBe('next');
  });

  it('does not start a task before the one before it has settled', async () => {
    const sut = new TurnTaking();
    let release!: () => void;
    const first = sut.run(() => new Promise<void>((resolve) => (release = resolve)));
    let secondStarted = false;
    const second = sut.run(async () => void (secondStarted = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(secondStarted).toBe(false);
    release();
    await Promise.all([first, second]);
    expect(secondStarted).toBe(true);
  });
});

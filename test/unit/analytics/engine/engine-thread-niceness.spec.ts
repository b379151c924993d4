import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EngineThreadNiceness, ProcessThreads } from '../../../../src/modules/analytics/engine/engine-thread-niceness';
import { engineDirectory } from './engine-test-support';

/** Threads by id with a name and a nice value, renamed and ended at will. */
function fakeThreads(initial: Record<string, string>) {
  const names = new Map(Object.entries(initial));
  const nice = new Map<string, number>();
  const threads: ProcessThreads = {
    ids: () => [...names.keys()],
    name: (id) => names.get(id) ?? null,
    lower: (id, value) => void nice.set(id, Math.max(nice.get(id) ?? 0, value)),
  };
  return { threads, names, nice: (id: string) => nice.get(id) ?? 0, raise: (id: string) => nice.delete(id), lowered: () => [...nice.keys()].sort() };
}

describe(EngineThreadNiceness.name, () => {
  let now = 0;
  const clock = () => now;
  beforeEach(() => (now = 0));

  it("lowers ClickHouse's threads and leaves Node's and the memory worker", () => {
    const fake = fakeThreads({ 1: 'node', 2: 'node', 3: 'libuv-worker', 4: 'V8 DefaultWorke', 5: 'ThreadPool', 6: 'QueryPipelineEx', 7: 'MemoryWorker', 8: 'BgSchPool' });
    const sut = new EngineThreadNiceness(10, fake.threads, clock);
    sut.sweep();
    expect(fake.lowered()).toEqual(['5', '6', '8']);
    expect(fake.nice('6')).toBe(10);
  });

  it('names each thread once, and lowers a ClickHouse thread again whenever something raised it', () => {
    const fake = fakeThreads({ 1: 'ThreadPool', 2: 'node' });
    const name = jest.spyOn(fake.threads, 'name');
    const sut = new EngineThreadNiceness(10, fake.threads, clock);
    sut.sweep();
    // As ClickHouse does after a query in a process that may raise priorities.
    fake.raise('1');
    sut.sweep();
    expect([fake.nice('1'), fake.nice('2')]).toEqual([10, 0]);
    expect(name.mock.calls.filter(([id]) => id === '1')).toHaveLength(1);
  });

  it('lowers a thread that names itself after it was first seen, and takes one named node for a second as Node’s', () => {
    const fake = fakeThreads({ 1: 'node', 2: 'node' });
    const sut = new EngineThreadNiceness(10, fake.threads, clock);
    sut.sweep();
    now = 10;
    fake.names.set('2', 'ThreadPool');
    sut.sweep();
    expect(fake.lowered()).toEqual(['2']);
    now = 1_010;
    sut.sweep();
    fake.names.set('1', 'ThreadPool');
    sut.sweep();
    expect(fake.lowered()).toEqual(['2']);
  });

  it('looks again at an id once its thread has ended, since Linux reuses ids', () => {
    const fake = fakeThreads({ 1: 'node', 2: 'MemoryWorker' });
    const sut = new EngineThreadNiceness(10, fake.threads, clock);
    now = 2_000;
    sut.sweep();
    sut.sweep();
    fake.names.delete('2');
    sut.sweep();
    fake.names.set('2', 'QueryPullPipeEx');
    sut.sweep();
    expect(fake.lowered()).toEqual(['2']);
  });

  it('does nothing at priority 0 or where the process has no thread list', () => {
    const fake = fakeThreads({ 1: 'ThreadPool' });
    new EngineThreadNiceness(0, fake.threads, clock).sweep();
    expect(() => new EngineThreadNiceness(10, null, clock).sweep()).not.toThrow();
    expect(fake.lowered()).toEqual([]);
  });
});

/** Whether this process holds CAP_SYS_NICE (bit 23 of the effective capabilities), as root does. */
function holdsSysNice(): boolean {
  const effective = /^CapEff:\s*([0-9a-f]+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? '0';
  return (BigInt(`0x${effective}`) & (1n << 23n)) !== 0n;
}

describe('the embedded engine in a process without CAP_SYS_NICE', () => {
  const dir = engineDirectory('thread-niceness');
  afterAll(() => dir.remove());

  /** Every thread of a child process that ran reads and a write at `priority`, started as the Docker image runs. */
  function threadsAfterStatements(priority: number): Array<{ name: string; nice: number }> {
    const child = [process.execPath, join(__dirname, 'niceness-child.fixture.js'), dir.path, String(priority)];
    const [command, ...args] = holdsSysNice() ? ['setpriv', '--bounding-set=-sys_nice', '--inh-caps=-sys_nice', ...child] : child;
    return JSON.parse(execFileSync(command, args, { encoding: 'utf8', timeout: 60_000 }));
  }

  it("runs ClickHouse's threads at the configured priority, below Node's", () => {
    const threads = threadsAfterStatements(10);
    const engine = threads.filter((thread) => !['node', 'libuv-worker', 'MemoryWorker'].includes(thread.name) && !thread.name.startsWith('V8 '));
    expect(engine.map((thread) => thread.name)).toEqual(expect.arrayContaining(['BgSchPool', 'ThreadPool']));
    expect(engine.filter((thread) => thread.nice !== 10)).toEqual([]);
    expect(threads.filter((thread) => thread.name === 'node').map((thread) => thread.nice)).toEqual(expect.arrayContaining([0]));
    expect(threads.filter((thread) => thread.name === 'node' && thread.nice !== 0)).toEqual([]);
  }, 60_000);

  it('leaves every thread at the process priority at priority 0', () => {
    expect(threadsAfterStatements(0).filter((thread) => thread.nice !== 0)).toEqual([]);
  }, 60_000);
});

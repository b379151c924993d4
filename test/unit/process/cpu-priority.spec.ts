import { fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

// The compiled module, as a worker process runs it (`npm test` builds dist/ first).
const COMPILED = join(__dirname, '..', '..', '..', 'dist', 'common', 'process', 'cpu-priority.js');

/**
 * Runs lowerCpuPriority in a child process of its own (a priority, once lowered, cannot be raised back without
 * privileges, and the test runner must keep its own) and returns what the child saw: the nice value of each of its
 * threads after the call, and that of a thread it started afterwards.
 */
function niceValuesAfterLowering(nice: number, before = 0): Promise<{ returned: number[]; threads: number[]; later: number }> {
  const script = join(__dirname, 'lower-cpu-priority.fixture.js');
  return new Promise((resolve, reject) => {
    const child = fork(script, [COMPILED, String(nice), String(before)]);
    child.once('message', resolve);
    child.once('error', reject);
    child.once('exit', (code) => code !== 0 && reject(new Error(`fixture exited with ${code}`)));
  });
}

describe('lowerCpuPriority', () => {
  beforeAll(() => expect(existsSync(COMPILED)).toBe(true));

  it('lowers every thread of the process, and threads started later inherit it', async () => {
    const seen = await niceValuesAfterLowering(10);
    expect(seen.threads.length).toBeGreaterThan(4); // the main thread and V8's and libuv's helpers
    expect(new Set(seen.threads)).toEqual(new Set([10]));
    expect(new Set(seen.returned)).toEqual(new Set([10]));
    expect(seen.later).toBe(10);
  });

  it('never raises a thread an operator already made nicer', async () => {
    const seen = await niceValuesAfterLowering(5, 15);
    expect(new Set(seen.threads)).toEqual(new Set([15]));
  });
});

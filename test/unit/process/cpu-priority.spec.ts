import { fork } from 'node:child_process';
import { getPriority } from 'node:os';
import { join } from 'node:path';
import { compiledFile } from '../../support/compiled';

// The compiled module, as a worker process runs it (a stale build fails the file).
const COMPILED = compiledFile('common/process/cpu-priority.js');

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
  // The suite may itself run under `nice`: every expectation is relative to the priority it started with.
  const base = getPriority();
  const lower = (by: number) => Math.min(19, base + by);

  it('lowers every thread of the process, and threads started later inherit it', async () => {
    const seen = await niceValuesAfterLowering(lower(10));
    expect(seen.threads.length).toBeGreaterThan(4); // the main thread and V8's and libuv's helpers
    expect(new Set(seen.threads)).toEqual(new Set([lower(10)]));
    expect(new Set(seen.returned)).toEqual(new Set([lower(10)]));
    expect(seen.later).toBe(lower(10));
  });

  it('never raises a thread an operator already made nicer', async () => {
    const seen = await niceValuesAfterLowering(lower(5), lower(15));
    expect(new Set(seen.threads)).toEqual(new Set([lower(15)]));
  });
});

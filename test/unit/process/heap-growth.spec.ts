import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fixHeapGrowth, HEAP_GROWING_PERCENT } from '../../../src/common/process/heap-growth';
import { compiledFile } from '../../support/compiled';

// The compiled module, as the service runs it (a stale build fails the file).
const COMPILED = compiledFile('common/process/heap-growth.js');

/**
 * Runs the fixture in a node of its own (V8's flags are the process's, and the test runner keeps its own) with `flags`,
 * and returns the factor of every old-generation limit V8 set (from `--trace-gc-verbose`) and what the call returned.
 */
function limitFactors(flags: string[], call: boolean): Promise<{ factors: number[]; returned: unknown }> {
  const script = join(__dirname, 'heap-growth.fixture.js');
  return new Promise((resolve, reject) => {
    // A fixed heap limit: V8's largest growth factor depends on it (4 from about 4 GB; the host's memory sets the default).
    execFile(process.execPath, ['--max-old-space-size=4096', ...flags, '--trace-gc-verbose', script, COMPILED, call ? 'call' : 'no'], { maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) return reject(error);
      const factors = [...stdout.matchAll(/\[HeapController\] Limit: .* \((\d+\.\d)\)/g)].map((match) => Number(match[1]));
      resolve({ factors, returned: JSON.parse(stderr.trim().split('\n').pop() ?? 'null').returned });
    });
  });
}

describe('fixHeapGrowth', () => {
  beforeAll(() => expect(existsSync(COMPILED)).toBe(true));

  it('makes every later old-generation limit twice what survived the last full collection', async () => {
    const { factors, returned } = await limitFactors([], true);
    expect(returned).toBe(HEAP_GROWING_PERCENT);
    expect(factors.length).toBeGreaterThan(0);
    expect(new Set(factors)).toEqual(new Set([2]));
  });

  it('leaves V8 to choose when not called (the control: this allocation gets other factors)', async () => {
    const { factors } = await limitFactors([], false);
    expect(factors.length).toBeGreaterThan(0);
    expect(factors).not.toContain(2);
  });

  it("keeps an operator's own --heap-growing-percent", async () => {
    const { factors, returned } = await limitFactors(['--heap-growing-percent=50'], true);
    expect(returned).toBeNull();
    expect(new Set(factors)).toEqual(new Set([1.5]));
  });

  it('recognises the operator flag in either spelling', () => {
    expect(fixHeapGrowth(['--heap_growing_percent=30'])).toBeNull();
    expect(fixHeapGrowth(['--heap-growing-percent', '30'])).toBeNull();
  });
});

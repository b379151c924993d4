import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const RULES = 'test/architecture/dependency-rules.cjs';
const KNOWN = 'test/architecture/known-violations.json';

/** dependency-cruiser over src with the project's rules (its CLI: the package is ESM and the tests are CommonJS). */
function cruise(...args: string[]): { status: number | null; output: string } {
  const bin = join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
  const run = spawnSync(process.execPath, [bin, 'src', '--config', RULES, ...args], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('import rules (test/architecture/dependency-rules.cjs)', () => {
  it('finds no import that breaks them beyond the violations known when each rule was added', () => {
    const { status, output } = cruise('--ignore-known', KNOWN, '--output-type', 'err');
    expect({ status, output }).toEqual({ status: 0, output: expect.stringContaining('no dependency violations found') });
  }, 60_000);

  it('keeps the known violations to those that still exist, so a fixed one leaves the list', () => {
    const { output } = cruise('--output-type', 'json');
    const found = JSON.parse(output).summary.violations as Array<{ from: string; to: string; rule: { name: string } }>;
    const known = JSON.parse(readFileSync(join(ROOT, KNOWN), 'utf8')) as Array<{ from: string; to: string; rule: { name: string } }>;
    const key = (v: { from: string; to: string; rule: { name: string } }) => `${v.rule.name} ${v.from} → ${v.to}`;
    expect(known.map(key).sort()).toEqual(found.map(key).sort());
  }, 60_000);
});

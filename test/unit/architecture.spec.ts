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

type Violation = { from: string; to: string; rule: { name: string } };
const key = (v: Violation) => `${v.rule.name} ${v.from} → ${v.to}`;

describe('import rules (test/architecture/dependency-rules.cjs)', () => {
  // One cruise for both checks. The baseline is compared here rather than with `--ignore-known`, which leaves out
  // folder-level rules.
  let found: string[];
  let known: string[];
  beforeAll(() => {
    const { output } = cruise('--output-type', 'json');
    found = (JSON.parse(output).summary.violations as Violation[]).map(key).sort();
    known = (JSON.parse(readFileSync(join(ROOT, KNOWN), 'utf8')) as Violation[]).map(key).sort();
  }, 60_000);

  it('finds no import that breaks them beyond the violations known when each rule was added', () => {
    expect(found.filter((violation) => !known.includes(violation))).toEqual([]);
  });

  it('keeps the known violations to those that still exist, so a fixed one leaves the list', () => {
    expect(known.filter((violation) => !found.includes(violation))).toEqual([]);
  });
});

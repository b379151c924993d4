import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const RULES = 'test/architecture/dependency-rules.cjs';

/** dependency-cruiser over src with the project's rules (its CLI: the package is ESM and the tests are CommonJS). */
function cruise(...args: string[]): { status: number | null; output: string } {
  const bin = join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
  const run = spawnSync(process.execPath, [bin, 'src', '--config', RULES, ...args], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

type Violation = { from: string; to: string; rule: { name: string } };
const key = (v: Violation) => `${v.rule.name} ${v.from} → ${v.to}`;

describe('import rules (test/architecture/dependency-rules.cjs)', () => {
  it('finds no import that breaks them', () => {
    const { output } = cruise('--output-type', 'json');
    const violations = (JSON.parse(output).summary.violations as Violation[]).map(key).sort();
    expect(violations).toEqual([]);
  }, 60_000);
});

import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/**
 * The suite runs through swc, which strips types without checking them, and the build checks src/ only: without this,
 * a test whose fake no longer matches the interface it stands in for (or a console page calling a field that is gone)
 * would still run green.
 */
function typecheck(project: string): { status: number | null; output: string } {
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const run = spawnSync(process.execPath, [tsc, '--noEmit', '-p', project], { cwd: ROOT, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('types', () => {
  it('of the server and every test (tsconfig.json) check', () => {
    expect(typecheck('tsconfig.json')).toEqual({ status: 0, output: '' });
  }, 180_000);

  it("of the web console (src/console/tsconfig.json, which Vite's build does not check) check", () => {
    expect(typecheck('src/console/tsconfig.json')).toEqual({ status: 0, output: '' });
  }, 120_000);
});

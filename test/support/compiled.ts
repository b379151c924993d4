import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
/** Written by src/tooling/ensure-built.js with the time its build started. */
const BUILD_STAMP = join(ROOT, 'dist', '.hogbase-build-stamp');

let newestSource: number | undefined;

function newest(entry: string): number {
  const stat = statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(entry).reduce((latest, child) => Math.max(latest, newest(join(entry, child))), stat.mtimeMs);
}

/**
 * A file of dist/, for tests that run compiled code as production does (threads, child processes). Throws when dist/
 * was built before the latest change under src/, so such a test fails on stale code instead of passing on it.
 */
export function compiledFile(relative: string): string {
  const file = join(ROOT, 'dist', relative);
  newestSource ??= newest(join(ROOT, 'src'));
  const builtAt = existsSync(BUILD_STAMP) ? statSync(BUILD_STAMP).mtimeMs : 0;
  if (builtAt < newestSource) throw new Error(`dist/ is older than src/: run \`npm run build\` (npm test and npm run test:unit build first), then this test.`);
  if (!existsSync(file)) throw new Error(`dist/${relative} is missing from the build.`);
  return file;
}

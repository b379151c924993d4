import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { QueryLimits } from '../../../../src/modules/analytics/engine/analytics-engine';
import { ChdbModule, loadChdb } from '../../../../src/modules/analytics/engine/chdb-handle';

/** Roomy limits: a test that wants a limit hit sets its own. */
export const LIMITS: QueryLimits = { timeoutMs: 30_000, maxThreads: 2, maxMemoryBytes: 1024 * 1024 * 1024, threadPriority: 10 };

export function requireChdb(): ChdbModule {
  const loaded = loadChdb();
  if ('reason' in loaded) throw new Error(`these tests need chdb: ${loaded.reason}`);
  return loaded.chdb;
}

/**
 * A data directory for this test file's embedded engine. Jest may run several files one after another in
 * one worker process, and chdb binds one directory per process: a file closes every engine it opened (in
 * afterAll) before the next file's directory can be opened.
 */
export function engineDirectory(name: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), `hogbase-${name}-`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

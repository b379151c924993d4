import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AnalyticsEngine, QueryLimits } from '../../../../src/modules/analytics/engine/analytics-engine';
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

/**
 * The rows of a large result as `queryBatches` hands them over: every batch, in order, and how many there were;
 * each batch's visit waits a turn of the event loop and checks that no other visit runs meanwhile.
 */
export async function visitedBatches(engine: AnalyticsEngine, rows: number): Promise<{ batches: number; values: number[] }> {
  const values: number[] = [];
  let batches = 0;
  let visiting = false;
  await engine.queryBatches<{ n: number }>({ text: `SELECT number AS n FROM numbers(${rows}) ORDER BY n SETTINGS max_block_size = 10000`, params: {} }, async (batch) => {
    if (visiting) throw new Error('a batch was handed over while the one before was still being visited');
    visiting = true;
    await new Promise((resolve) => setImmediate(resolve));
    values.push(...batch.map((row) => row.n));
    batches++;
    visiting = false;
  });
  return { batches, values };
}

import type { Queue } from 'bullmq';
import { sendJson } from './capture-client';
import { PartitionQueues } from '../../src/queues/partition-queues';
import type { TestApp } from './test-app';

/** Polls until the query returns at least `count` rows (ingestion is asynchronous), or fails with what it saw. */
export async function waitForRows<T = Record<string, unknown>>(
  t: TestApp,
  sql: string,
  params: unknown[],
  count: number,
  timeoutMs = 15_000,
): Promise<T[]> {
  const deadline = performance.now() + timeoutMs;
  let rows: T[] = [];
  while (performance.now() < deadline) {
    rows = await t.sql<T>(sql, params);
    if (rows.length >= count) return rows;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`expected ${count} rows from ${sql}, saw ${rows.length}: ${JSON.stringify(rows).slice(0, 500)}`);
}

export function partitionQueues(t: TestApp): readonly Queue[] {
  return t.app.get(PartitionQueues).all;
}

/**
 * Waits until no partition queue has work left, so "nothing else will arrive" can be asserted. Right after Redis
 * comes back the queues' connections may still be reconnecting (they fail fast rather than queue commands): that
 * counts as not known yet, until the deadline.
 */
export async function waitForQueuesIdle(t: TestApp, timeoutMs = 15_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    let busy = 0;
    try {
      for (const queue of partitionQueues(t)) {
        const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
        busy += counts.waiting + counts.active + counts.delayed + counts.prioritized;
      }
    } catch (error) {
      if (!/Stream isn't writeable|Connection is closed/.test(String(error)) || performance.now() > deadline) throw error;
      busy = -1;
    }
    if (busy === 0) return;
    if (performance.now() > deadline) throw new Error(`queues still busy (${busy} jobs)`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Sends one batch to /batch/ under this project key, expects 200, and waits until ingestion has stored it. */
export async function ingestBatch(t: TestApp, token: string, batch: Array<Record<string, unknown>>): Promise<void> {
  expect((await sendJson(t, '/batch/', { api_key: token, batch })).status).toBe(200);
  await waitForQueuesIdle(t);
}

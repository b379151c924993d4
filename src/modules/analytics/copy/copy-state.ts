import type { AnalyticsEngine } from '../engine/analytics-engine';
import { ChParams } from '../engine/ch-sql';

/**
 * Where the copy stands, kept in ClickHouse beside the data it describes (so a copy and its state are
 * never apart, and every process that refreshes one server reads the same): per batch a `started` row,
 * then a `committed` row with the PostgreSQL horizon reached and the transactions at or above it applied.
 */
export interface CopyState {
  batch: number;
  status: 'started' | 'committed';
  copyVersion: number;
  /** The snapshot xmin every transaction below which is in the copy (decimal text). */
  horizon: string;
  /** Transactions at or above the horizon already in the copy. */
  applied: string[];
}

interface StateRow {
  batch: string | number;
  status: 'started' | 'committed';
  copy_version: number;
  horizon: string;
  applied: string[];
}

/** The last batch's row, and the last committed one (they differ after a batch that never committed). */
export async function readCopyState(engine: AnalyticsEngine): Promise<{ last: CopyState | null; committed: CopyState | null }> {
  const rows = await engine.query<StateRow>(new ChParams().sql(
    `SELECT batch, status, copy_version, horizon, applied FROM copy_state ORDER BY batch DESC, status DESC LIMIT 1 BY status LIMIT 2`,
  ));
  const states = rows.map((r) => ({ batch: Number(r.batch), status: r.status, copyVersion: Number(r.copy_version), horizon: r.horizon, applied: r.applied }));
  const last = states.reduce<CopyState | null>((top, s) => (!top || s.batch > top.batch || (s.batch === top.batch && s.status === 'committed') ? s : top), null);
  return { last, committed: states.find((s) => s.status === 'committed') ?? null };
}

export async function writeCopyState(engine: AnalyticsEngine, state: CopyState): Promise<void> {
  await engine.insert('copy_state', [{
    batch: state.batch, status: state.status, copy_version: state.copyVersion, horizon: state.horizon, applied: state.applied, at: new Date().toISOString().replace('T', ' ').replace('Z', ''),
  }]);
}

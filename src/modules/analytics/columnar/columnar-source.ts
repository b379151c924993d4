import type { PoolClient } from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { readCopyRows } from './copy-text';
import { ColumnarEvent, pathItemOf } from './event-columns';

/**
 * The reads that build and refresh a project's in-memory event copy, all inside one REPEATABLE READ
 * snapshot: the snapshot's xmin (every transaction below it has ended), the project's deletion generation,
 * then either every row (COPY) or only rows written by transactions at or above the last xmin that were
 * not applied yet. A transaction's rows are visible all together or not at all, so remembering which
 * transactions were applied is enough to apply each row exactly once.
 */

export interface Horizon {
  /** The snapshot's xmin, as decimal text. */
  xmin: string;
  /** null when the project no longer exists. */
  generation: string | null;
}

export interface EventRow extends ColumnarEvent {
  /** The writing transaction, when at or above the snapshot's xmin (it must be remembered as applied). */
  tx: string | null;
}

interface OwnerRow {
  distinctId: string;
  personId: string;
  tx: string | null;
}

const DECIMAL = /^\d+$/;

/** The columns of an event row; `tx` is the writing transaction as the read needs it remembered. */
function eventColumnsSql(tx: string): string {
  return `(extract(epoch FROM timestamp) * 1000)::float8, event, distinct_id, left(uuid::text, 8),
    CASE WHEN event = '$pageview' THEN properties ->> '$current_url' WHEN event = '$screen' THEN properties ->> '$screen_name' END,
    ${tx}`;
}

/** A full read remembers only the transactions at or above the snapshot's xmin: the ones a refresh may meet again. */
function txAtOrAbove(xmin: string): string {
  return `CASE WHEN tx >= '${xmin}'::xid8 THEN tx::text END`;
}

function eventRow(fields: Array<string | null>): EventRow {
  const event = fields[1] ?? '';
  return {
    time: Number(fields[0]),
    event,
    distinctId: fields[2] ?? '',
    tie: parseInt(fields[3] ?? '0', 16),
    item: pathItemOf(event, fields[4]),
    tx: fields[5],
  };
}

export async function readHorizon(client: PoolClient, projectId: number): Promise<Horizon> {
  const { rows } = await client.query<{ xmin: string; generation: string | null }>(
    'SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin, (SELECT deletion_generation::text FROM project WHERE id = $1) AS generation',
    [projectId],
  );
  return rows[0];
}

/**
 * COPY of a whole result, row by row; the numbers put in `sql` are checked integers, never outside text.
 * Run on a connection without a client-side read timeout: a COPY stream never clears pg's timer.
 */
async function copyEach(client: PoolClient, sql: string, row: (fields: Array<string | null>) => void): Promise<void> {
  await readCopyRows(client.query(copyTo(`COPY (${sql}) TO STDOUT`)), row);
}

/** Every event of the project (stopping with an error once `budget` rows were read), then every distinct id's owner. */
export async function readEverything(
  client: PoolClient, projectId: number, horizon: Horizon, budget: number,
  onEvent: (row: EventRow) => void, onOwner: (row: OwnerRow) => void,
): Promise<void> {
  if (!Number.isSafeInteger(projectId) || !DECIMAL.test(horizon.xmin)) throw new Error('invalid project or snapshot horizon');
  let events = 0;
  await copyEach(client, `SELECT ${eventColumnsSql(txAtOrAbove(horizon.xmin))} FROM event WHERE project_id = ${projectId}`, (fields) => {
    if (++events > budget) throw new ColumnarBudgetExceeded(budget);
    onEvent(eventRow(fields));
  });
  const owners = `SELECT distinct_id, person_id::text, ${txAtOrAbove(horizon.xmin)} FROM person_distinct_id WHERE project_id = ${projectId}`;
  await copyEach(client, owners, (fields) => onOwner({ distinctId: fields[0] ?? '', personId: fields[1] ?? '', tx: fields[2] }));
}

/** Rows of transactions at or above `since` (the last snapshot's xmin) that are not among `applied`. */
export async function readChanges(client: PoolClient, projectId: number, since: string, applied: string[]): Promise<{ events: EventRow[]; owners: OwnerRow[] }> {
  const events = await client.query<string[]>({
    // Every changed row is remembered by its own transaction, whatever the new horizon.
    text: `SELECT ${eventColumnsSql('tx::text')} FROM event WHERE project_id = $1 AND tx >= $2::xid8 AND tx <> ALL($3::xid8[])`,
    values: [projectId, since, applied],
    rowMode: 'array',
  });
  const owners = await client.query<string[]>({
    text: 'SELECT distinct_id, person_id::text, tx::text FROM person_distinct_id WHERE project_id = $1 AND tx >= $2::xid8 AND tx <> ALL($3::xid8[])',
    values: [projectId, since, applied],
    rowMode: 'array',
  });
  return {
    events: events.rows.map(eventRow),
    owners: owners.rows.map((fields) => ({ distinctId: fields[0], personId: fields[1], tx: fields[2] })),
  };
}

export class ColumnarBudgetExceeded extends Error {
  constructor(readonly budget: number) {
    super(`more than ${budget} events`);
  }
}

/** Every person's value of one property as text (null when absent). */
export async function readPersonProperty(client: PoolClient, projectId: number, key: string, row: (personId: string, value: string | null) => void): Promise<void> {
  if (!Number.isSafeInteger(projectId)) throw new Error('invalid project');
  // COPY takes no bound parameters: the key is quoted by the driver's literal escaping.
  const sql = `SELECT id::text, properties ->> ${client.escapeLiteral(key)} FROM person WHERE project_id = ${projectId}`;
  await copyEach(client, sql, (fields) => row(fields[0] ?? '', fields[1]));
}

/** Every person's creation time (ms). */
export async function readPersonCreated(client: PoolClient, projectId: number, row: (personId: string, created: number) => void): Promise<void> {
  if (!Number.isSafeInteger(projectId)) throw new Error('invalid project');
  const sql = `SELECT id::text, (extract(epoch FROM created_at) * 1000)::float8 FROM person WHERE project_id = ${projectId}`;
  await copyEach(client, sql, (fields) => row(fields[0] ?? '', Number(fields[1])));
}

interface ChangedPerson {
  personId: string;
  created: number;
  /** The values of `keys`, in order, as text (null when absent). */
  values: Array<string | null>;
}

/**
 * Persons written by transactions at or above `since`. Reading one twice is harmless (the row is its
 * latest version), so no applied set is needed here.
 */
export async function readChangedPersons(client: PoolClient, projectId: number, since: string, keys: string[]): Promise<ChangedPerson[]> {
  const { rows } = await client.query<string[]>({
    text: `SELECT id::text, (extract(epoch FROM created_at) * 1000)::float8,
        array(SELECT properties ->> k FROM unnest($3::text[]) WITH ORDINALITY AS wanted(k, n) ORDER BY n)
      FROM person WHERE project_id = $1 AND tx >= $2::xid8`,
    values: [projectId, since, keys],
    rowMode: 'array',
  });
  return rows.map((fields) => ({ personId: fields[0], created: Number(fields[1]), values: fields[2] as unknown as Array<string | null> }));
}

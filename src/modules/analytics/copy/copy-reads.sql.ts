/**
 * The PostgreSQL reads that fill the ClickHouse copy, as COPY statements whose text output is ClickHouse's
 * TabSeparated format (NULL as `\N`, backslash escapes). COPY takes no bound parameters: every number put
 * into this SQL is checked here (project ids, transaction ids, batch numbers), never outside text.
 *
 * Which rows: a full read takes every row of a project; a refresh takes only the rows written by the
 * transactions it applies (`txs`, all at or above the last horizon, so the (project_id, tx) indexes find them).
 */

/** Rows of a transaction set: `null` reads every row (a rebuild). */
export interface TxSelection {
  since: string;
  txs: readonly string[];
}

const DECIMAL = /^\d+$/;

function checked(value: string | number, what: string): string {
  const text = String(value);
  if (!DECIMAL.test(text)) throw new Error(`invalid ${what} for a copy read: ${text}`);
  return text;
}

function txCondition(column: string, selection: TxSelection | null): string {
  if (!selection) return 'TRUE';
  const txs = selection.txs.map((tx) => checked(tx, 'transaction id'));
  return `${column} >= '${checked(selection.since, 'horizon')}'::xid8 AND ${column} = ANY('{${txs.join(',')}}'::xid8[])`;
}

const UTC_TEXT = `'YYYY-MM-DD HH24:MI:SS.US'`;

function utc(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', ${UTC_TEXT})`;
}

export const EVENT_COLUMNS = ['team_id', 'uuid', 'event', 'distinct_id', 'person_id', 'timestamp', 'properties', 'elements_chain', '_batch'] as const;

/** A project's events with the owner of their distinct id as of this snapshot (0: none). */
export function eventsCopySql(projectId: number, selection: TxSelection | null, batch: number): string {
  const p = checked(projectId, 'project');
  return `COPY (SELECT e.project_id, e.uuid, e.event, e.distinct_id, coalesce(pd.person_id, 0), ${utc('e.timestamp')}, e.properties::text, e.elements_chain, ${checked(batch, 'batch')}
    FROM event e LEFT JOIN person_distinct_id pd ON pd.project_id = e.project_id AND pd.distinct_id = e.distinct_id
    WHERE e.project_id = ${p} AND ${txCondition('e.tx', selection)}) TO STDOUT`;
}

export const PERSON_COLUMNS = ['team_id', 'id', 'created_at', 'properties', 'is_deleted', 'version'] as const;

export function personsCopySql(projectId: number, selection: TxSelection | null, version: number): string {
  return `COPY (SELECT project_id, id, ${utc('created_at')}, properties::text, 0, ${checked(version, 'version')}
    FROM person WHERE project_id = ${checked(projectId, 'project')} AND ${txCondition('tx', selection)}) TO STDOUT`;
}

export const DISTINCT_ID_COLUMNS = ['team_id', 'distinct_id', 'person_id', 'is_deleted', 'version'] as const;

export function distinctIdsCopySql(projectId: number, selection: TxSelection | null, version: number): string {
  return `COPY (SELECT project_id, distinct_id, person_id, 0, ${checked(version, 'version')}
    FROM person_distinct_id WHERE project_id = ${checked(projectId, 'project')} AND ${txCondition('tx', selection)}) TO STDOUT`;
}

export const GROUP_COLUMNS = ['team_id', 'group_type_index', 'group_key', 'created_at', 'properties', 'is_deleted', 'version'] as const;

export function groupsCopySql(projectId: number, selection: TxSelection | null, version: number): string {
  return `COPY (SELECT project_id, group_type_index, group_key, ${utc('created_at')}, properties::text, 0, ${checked(version, 'version')}
    FROM "group" WHERE project_id = ${checked(projectId, 'project')} AND ${txCondition('tx', selection)}) TO STDOUT`;
}

export const COHORT_PERSON_COLUMNS = ['team_id', 'cohort_id', 'person_id', 'is_deleted', 'version'] as const;

export function cohortPersonsCopySql(projectId: number, selection: TxSelection | null, version: number): string {
  return `COPY (SELECT c.project_id, cp.cohort_id, cp.person_id, 0, ${checked(version, 'version')}
    FROM cohort_person cp JOIN cohort c ON c.id = cp.cohort_id
    WHERE c.project_id = ${checked(projectId, 'project')} AND ${txCondition('cp.tx', selection)}) TO STDOUT`;
}

/**
 * The transactions at or above `since` that wrote rows the copy holds and are not applied yet, over every
 * project: one index range per project and table (the tx indexes lead with the project).
 */
export const PENDING_TXS_SQL = `
  SELECT DISTINCT tx::text AS tx FROM (
    SELECT t.tx FROM project p CROSS JOIN LATERAL (
      SELECT tx FROM event WHERE project_id = p.id AND tx >= $1::xid8
      UNION ALL SELECT tx FROM person_distinct_id WHERE project_id = p.id AND tx >= $1::xid8
      UNION ALL SELECT tx FROM person WHERE project_id = p.id AND tx >= $1::xid8
      UNION ALL SELECT tx FROM "group" WHERE project_id = p.id AND tx >= $1::xid8) t
    UNION ALL SELECT tx FROM cohort_person WHERE tx >= $1::xid8
    UNION ALL SELECT tx FROM analytics_deletion WHERE tx >= $1::xid8) pending
  WHERE NOT (tx::text = ANY($2::text[]))`;

/** Projects with rows in the given transactions (which COPY reads to run). */
export const TOUCHED_PROJECTS_SQL = `
  SELECT DISTINCT project_id FROM (
    SELECT p.id AS project_id FROM project p WHERE EXISTS (SELECT 1 FROM event WHERE project_id = p.id AND tx >= $1::xid8 AND tx = ANY($2::xid8[]))
      OR EXISTS (SELECT 1 FROM person_distinct_id WHERE project_id = p.id AND tx >= $1::xid8 AND tx = ANY($2::xid8[]))
      OR EXISTS (SELECT 1 FROM person WHERE project_id = p.id AND tx >= $1::xid8 AND tx = ANY($2::xid8[]))
      OR EXISTS (SELECT 1 FROM "group" WHERE project_id = p.id AND tx >= $1::xid8 AND tx = ANY($2::xid8[]))
    UNION ALL SELECT c.project_id FROM cohort_person cp JOIN cohort c ON c.id = cp.cohort_id WHERE cp.tx >= $1::xid8 AND cp.tx = ANY($2::xid8[])) touched`;

/** The deletions of the given transactions, oldest first. */
export const DELETIONS_SQL = `
  SELECT project_id, kind, key FROM analytics_deletion WHERE tx >= $1::xid8 AND tx = ANY($2::xid8[]) ORDER BY id`;

/** The changed distinct ids of a project (a refresh compares them with the copy's owners). */
export const CHANGED_DISTINCT_IDS_SQL = `
  SELECT distinct_id, person_id::text AS person_id FROM person_distinct_id WHERE project_id = $1 AND tx >= $2::xid8 AND tx = ANY($3::xid8[])`;

/** Deletion log rows older than every copy needs (see the AnalyticsDeletionLog migration). */
export const PRUNE_DELETIONS_SQL = `DELETE FROM analytics_deletion WHERE deleted_at < now() - interval '1 day' AND tx < $1::xid8`;

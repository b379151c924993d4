import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DateTime } from 'luxon';
import { DataSource } from 'typeorm';
import { EventLoopSlices } from '../../common/async/event-loop-slices';
import { likePattern } from '../../database/like-pattern';
import type { CohortDefinition } from '../events/property-filter-sql';
import { ANALYTICS_ENGINE, AnalyticsEngine } from './engine/analytics-engine';
import { ChParams, ChSql } from './engine/ch-sql';
import type { SecondGroup } from './model/funnel-conversion';

/** A data point row: breakdown value (or null), bucket key (or null for the whole range), value. */
export interface PointRow {
  breakdown_value: string | null;
  bucket: string | null;
  value: number | null;
}

/** An actor row of a persons page: person id or group key, and its value at the data point. */
export interface ActorRow {
  actor: string;
  value: number | null;
}

export interface GroupActor {
  groupKey: string;
  groupTypeIndex: number;
  properties: Record<string, unknown>;
  createdAt: Date;
}

/** One line of a funnel: its breakdown value ('' without one), then per step (the first has no conversion times). */
export interface FunnelStepLineRow {
  line: string;
  actors: number;
  counts: number[];
  averages: Array<number | null>;
  medians: Array<number | null>;
}

export interface FunnelTrendLineRow {
  line: string;
  actors: number;
  entered: Map<string, number>;
  converted: Map<string, number>;
}

/** How long a visit of per-actor rows holds the event loop before letting other requests in. */
const VISIT_SLICE_MS = 5;

function numberOrNull(value: unknown): number | null {
  return value === null || value === undefined ? null : Number(value);
}

/**
 * Every analytic read. Event scans go to ClickHouse (the engine, over the copy of PostgreSQL's events and
 * persons); what describes the project (cohort definitions, group types) and the actors shown on a page
 * (their properties, found by id) is read from PostgreSQL, the system of record, by primary key.
 */
@Injectable()
export class AnalyticsRepository {
  constructor(
    @Inject(ANALYTICS_ENGINE) private readonly engine: AnalyticsEngine,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  async points(sql: ChSql): Promise<PointRow[]> {
    const rows = await this.engine.query<PointRow>(sql);
    return rows.map((row) => ({ ...row, value: numberOrNull(row.value) }));
  }

  /** A histogram breakdown's bin edges (NaN-free: no numeric value, no edge). */
  async histogramEdges(sql: ChSql): Promise<number[]> {
    const rows = await this.engine.query<{ edges: unknown[] }>(sql);
    return (rows[0]?.edges ?? []).map(Number).filter((edge) => Number.isFinite(edge));
  }

  /** `(value, events)` rows of a breakdown's top values. */
  breakdownValues(sql: ChSql): Promise<Array<{ value: string; events: string }>> {
    return this.engine.query(sql);
  }

  /** A breakdown's top values in rank order, each with its points (see `rankedPointsSql`). */
  async rankedPoints(sql: ChSql): Promise<Array<{ value: string; points: PointRow[] }>> {
    const rows = await this.engine.query<{ breakdown_value: string; points: Array<[string | null, unknown]> }>(sql);
    return rows.map((row) => ({
      value: row.breakdown_value,
      points: row.points.map(([bucket, value]) => ({ breakdown_value: row.breakdown_value, bucket, value: numberOrNull(value) })),
    }));
  }

  async actors(sql: ChSql): Promise<ActorRow[]> {
    const rows = await this.engine.query<{ actor: string; value: number | null }>(sql);
    return rows.map((row) => ({ actor: String(row.actor), value: numberOrNull(row.value) }));
  }

  /** The actors of a page already cut in the engine, in its order. */
  async actorIds(sql: ChSql): Promise<string[]> {
    const rows = await this.engine.query<{ actor: unknown }>(sql);
    return rows.map((row) => String(row.actor));
  }

  /** Retention persons: each actor of a cohort with the intervals they came back in. */
  async retainedActors(sql: ChSql): Promise<Array<{ actor: string; intervals: number[] }>> {
    const rows = await this.engine.query<{ actor: string; intervals: number[] }>(sql);
    return rows.map((row) => ({ actor: String(row.actor), intervals: row.intervals.map(Number) }));
  }

  /** Rows of `(key, value)` with numeric values: stickiness counts, lifecycle counts. */
  async counts<K extends string>(sql: ChSql, keys: K[]): Promise<Array<Record<K, string> & { value: number }>> {
    const rows = await this.engine.query<Record<string, unknown>>(sql);
    return rows.map((row) => ({ ...Object.fromEntries(keys.map((k) => [k, String(row[k])])), value: Number(row.value) }) as Record<K, string> & { value: number });
  }

  /** A funnel's lines as the engine tallies them: actors who entered, and per step the actors who reached it and their conversion seconds. */
  async funnelStepLines(sql: ChSql): Promise<FunnelStepLineRow[]> {
    const rows = await this.engine.query<{ line: string; actors: unknown; counts: unknown[]; averages: unknown[]; medians: unknown[] }>(sql);
    return rows.map((row) => ({ line: row.line, actors: Number(row.actors), counts: row.counts.map(Number), averages: row.averages.map(numberOrNull), medians: row.medians.map(numberOrNull) }));
  }

  /** A funnel's trend lines: actors who entered, and per entrance period how many reached the `from` and the `to` step. */
  async funnelTrendLines(sql: ChSql): Promise<FunnelTrendLineRow[]> {
    type Sums = [string[], unknown[]];
    const asMap = ([keys, counts]: Sums) => new Map(keys.map((key, i) => [key, Number(counts[i])]));
    const rows = await this.engine.query<{ line: string; actors: unknown; entered: Sums; converted: Sums }>(sql);
    return rows.map((row) => ({ line: row.line, actors: Number(row.actors), entered: asMap(row.entered), converted: asMap(row.converted) }));
  }

  /** Correlation's counts: the totals of who converted and who did not (`kind` 0), then per candidate (`kind` 1). */
  async correlationCounts(sql: ChSql): Promise<Array<{ kind: number; name: string; success: number; failure: number }>> {
    const rows = await this.engine.query<Record<string, unknown>>(sql);
    return rows.map((row) => ({ kind: Number(row.kind), name: String(row.name), success: Number(row.success), failure: Number(row.failure) }));
  }

  /** Conversion times grouped by whole second. */
  async secondGroups(sql: ChSql): Promise<SecondGroup[]> {
    const rows = await this.engine.query<Record<keyof SecondGroup, unknown>>(sql);
    return rows.map((row) => ({ second: Number(row.second), actors: Number(row.actors), least: Number(row.least), greatest: Number(row.greatest), total: Number(row.total) }));
  }

  /** A paths insight's edges, heaviest first, with the sum of their ms. */
  async pathEdges(sql: ChSql): Promise<Array<{ source: string; target: string; value: number; totalMs: number }>> {
    const rows = await this.engine.query<{ source: string; target: string; value: unknown; total_ms: unknown }>(sql);
    return rows.map((row) => ({ source: row.source, target: row.target, value: Number(row.value), totalMs: Number(row.total_ms) }));
  }

  /** One page of a paths persons request's actors, and which of its keys (bits: start, end, drop-off) some path holds. */
  async pathActors(sql: ChSql): Promise<{ seen: number; actors: string[] }> {
    const [row] = await this.engine.query<{ seen: unknown; actors: string[] }>(sql);
    return { seen: Number(row.seen), actors: row.actors };
  }

  /**
   * A result visited row by row (one actor's events each for event-property correlation; one selected actor each
   * for persons pages). Rows carrying event properties (`properties`, JSON text in the copy) are
   * handed over parsed.
   */
  async forEachRow<R>(sql: ChSql, visit: (row: R) => void): Promise<void> {
    // A correlation read over a million actors parses and visits a million rows (seconds), and batches that are ready
    // arrive without an event-loop turn between them: in slices, so capture and flag requests that arrive
    // meanwhile wait one slice (a batch's parse and some rows), not the whole insight.
    const slices = new EventLoopSlices(VISIT_SLICE_MS);
    await this.engine.queryBatches<Record<string, unknown>>(sql, async (rows) => {
      for (const row of rows) {
        if (slices.due()) await slices.nextSlice();
        if (Array.isArray(row.properties)) row.properties = row.properties.map((text) => (typeof text === 'string' ? JSON.parse(text) : text));
        visit(row as R);
      }
    });
  }

  async earliestEventTime(projectId: number): Promise<DateTime | null> {
    const p = new ChParams();
    const rows = await this.engine.query<{ at: number | null }>(p.sql(
      `SELECT if(count() = 0, NULL, toUnixTimestamp64Milli(min(timestamp))) AS at FROM events WHERE team_id = ${p.add(projectId, 'Int64')}`,
    ));
    const at = rows[0]?.at;
    return at === null || at === undefined ? null : DateTime.fromMillis(Number(at), { zone: 'utc' });
  }

  /** Whether the copy holds any distinct-id override for the project: reads without one join none (see SqlContext). */
  async hasOverrides(projectId: number): Promise<boolean> {
    const p = new ChParams();
    const rows = await this.engine.query<{ found: number }>(p.sql(
      `SELECT count() AS found FROM (SELECT 1 FROM person_distinct_id_overrides WHERE team_id = ${p.add(projectId, 'Int64')} LIMIT 1)`,
    ));
    return Number(rows[0]?.found) > 0;
  }

  async groupTypes(projectId: number): Promise<Map<number, string>> {
    const rows: Array<{ group_type: string; group_type_index: number }> = await this.dataSource.query(
      'SELECT group_type, group_type_index FROM group_type_mapping WHERE project_id = $1', [projectId],
    );
    return new Map(rows.map((r) => [Number(r.group_type_index), r.group_type]));
  }

  async liveCohorts(projectId: number): Promise<Map<number, CohortDefinition & { name: string }>> {
    const rows: Array<{ id: number; name: string; is_static: boolean; filters: Record<string, unknown> }> = await this.dataSource.query(
      'SELECT id, name, is_static, filters FROM cohort WHERE project_id = $1 AND NOT deleted', [projectId],
    );
    return new Map(rows.map((r) => [r.id, { name: r.name, isStatic: r.is_static, filters: r.filters }]));
  }

  /**
   * Which of these actors match PostHog's actor search: a person's email or name or one of their
   * distinct ids contains the text (a group's key or name for groups).
   */
  async actorsMatching(projectId: number, groupTypeIndex: number | null, ids: string[], search: string): Promise<string[]> {
    if (ids.length === 0) return [];
    const pattern = likePattern(search, '%', '%');
    const sql =
      groupTypeIndex === null
        ? `SELECT p.id::text AS id FROM person p WHERE p.project_id = $1 AND p.id = ANY($2::bigint[])
            AND (p.properties ->> 'email' ILIKE $3 OR p.properties ->> 'name' ILIKE $3
              OR EXISTS (SELECT 1 FROM person_distinct_id d WHERE d.person_id = p.id AND d.distinct_id ILIKE $3))`
        : `SELECT g.group_key AS id FROM "group" g WHERE g.project_id = $1 AND g.group_type_index = $4 AND g.group_key = ANY($2::text[])
            AND (g.group_key ILIKE $3 OR g.properties ->> 'name' ILIKE $3)`;
    const values = groupTypeIndex === null ? [projectId, ids, pattern] : [projectId, ids, pattern, groupTypeIndex];
    const rows: Array<{ id: string }> = await this.dataSource.query(sql, values);
    return rows.map((row) => row.id);
  }

  /** The properties of persons (by id) or of groups of one type (by key). */
  async actorProperties(projectId: number, groupTypeIndex: number | null, ids: string[]): Promise<Map<string, Record<string, unknown>>> {
    if (ids.length === 0) return new Map();
    const rows: Array<{ id: string; properties: Record<string, unknown> }> =
      groupTypeIndex === null
        ? await this.dataSource.query('SELECT id::text AS id, properties FROM person WHERE project_id = $1 AND id = ANY($2::bigint[])', [projectId, ids])
        : await this.dataSource.query('SELECT group_key AS id, properties FROM "group" WHERE project_id = $1 AND group_type_index = $3 AND group_key = ANY($2::text[])', [projectId, ids, groupTypeIndex]);
    return new Map(rows.map((row) => [row.id, row.properties]));
  }

  async groups(projectId: number, groupTypeIndex: number, keys: string[]): Promise<GroupActor[]> {
    if (keys.length === 0) return [];
    const rows: Array<{ group_key: string; properties: Record<string, unknown>; created_at: Date }> = await this.dataSource.query(
      `SELECT group_key, properties, created_at FROM "group" WHERE project_id = $1 AND group_type_index = $2 AND group_key = ANY($3::text[])
        ORDER BY created_at DESC, group_key`,
      [projectId, groupTypeIndex, keys],
    );
    return rows.map((r) => ({ groupKey: r.group_key, groupTypeIndex, properties: r.properties, createdAt: r.created_at }));
  }
}

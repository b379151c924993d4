import type { DateTime } from 'luxon';
import { ApiError } from '../../../common/errors/api-error';
import { bucketDay, bucketLabel } from '../model/insight-dates';
import { InsightKind, InsightQuery, LIFECYCLE_STATUSES } from '../model/insight-query';
import type { InsightResult } from '../model/insight-result';
import type { SerializedActor } from './actor.presenter';
import { legacyResult } from './legacy-insight.presenter';

/** Keys of the legacy series that only make sense beside the legacy persons routes. */
const LEGACY_ONLY = ['persons_urls', 'persons', 'filter'];

/** An insight node's reply: the same series as the legacy route, without its persons URLs. */
export function queryResult(query: InsightQuery, result: InsightResult) {
  const results = legacyResult(query, result, { projectId: 0, input: {} }).map((line) => {
    const copy = { ...line };
    for (const key of LEGACY_ONLY) delete copy[key];
    return copy;
  });
  return { results, hasMore: result.hasMore };
}

const COLUMNS = ['actor', 'person', 'id', 'created_at', 'event_count', 'value_at_data_point', 'appearances'];

/** ActorsQuery's `select`: the actor object, its id, its creation time, and its value at the point. */
export function actorColumns(select: unknown, kind: InsightKind): string[] {
  if (select === undefined || select === null) return kind === 'trends' ? ['actor', 'event_count'] : ['actor'];
  if (!Array.isArray(select) || select.length === 0 || select.some((c) => typeof c !== 'string' || !COLUMNS.includes(c))) {
    throw ApiError.validation(`select must list columns among ${COLUMNS.join(', ')}.`, 'select');
  }
  return select as string[];
}

export function actorRows(people: SerializedActor[], columns: string[]): unknown[][] {
  return people.map((actor) =>
    columns.map((column) => {
      if (column === 'actor' || column === 'person') return actor;
      if (column === 'id') return actor.id;
      if (column === 'created_at') return actor.created_at;
      if (column === 'appearances') return null;
      return actor.value_at_data_point ?? null;
    }),
  );
}

/** InsightActorsQueryOptions: the values each selector of an InsightActorsQuery may take. */
export function actorOptions(query: InsightQuery, result: InsightResult, buckets: DateTime[]) {
  const series = query.series.map((s) => ({ label: s.customName ?? s.name, value: s.index }));
  if (query.kind === 'stickiness') {
    return { day: buckets.map((_, i) => ({ label: `${i + 1} ${query.interval}${i === 0 ? '' : 's'}`, value: i + 1 })), series };
  }
  const day = buckets.map((b) => ({ label: bucketLabel(b, query.interval), value: bucketDay(b, query.interval) }));
  if (query.kind === 'lifecycle') {
    return { day, status: LIFECYCLE_STATUSES.map((s) => ({ label: s[0].toUpperCase() + s.slice(1), value: s })), series: series.slice(0, 1) };
  }
  const breakdown = query.breakdown
    ? [...new Map(result.series.filter((l) => l.breakdownValue !== null).map((l) => [JSON.stringify(l.breakdownValue), { label: l.breakdownLabel, value: l.breakdownValue }])).values()]
    : undefined;
  const compare = query.compare ? [{ label: 'Current', value: 'current' }, { label: 'Previous', value: 'previous' }] : undefined;
  return { day, series, ...(breakdown ? { breakdown } : {}), ...(compare ? { compare } : {}) };
}

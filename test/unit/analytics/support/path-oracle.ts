import { parsePathCleaningRules, PathCleaningRule } from '../../../../src/common/validation/path-cleaning';
import { byteOrder } from '../../../../src/modules/analytics/model/actor-page';
import type { PathOptions } from '../../../../src/modules/analytics/model/insight-query';
import { PathEdge, reachableEdges } from '../../../../src/modules/analytics/model/path-edges';

/**
 * The TypeScript statement of paths that the differential test holds the ClickHouse SQL (sql/paths.sql.ts) to:
 * paths, PostHog's way, from one actor's events in time order. Each event's path item (URL, screen or
 * event name) is cleaned by the rules, replaced by the first grouping pattern it matches, and dropped when
 * excluded. The events split into sessions at gaps of 30 minutes or more; repeats in a row collapse into
 * their last one. A start point cuts a session to begin at its first occurrence (sessions without it are
 * dropped); an end point cuts it to end at its first occurrence after that and keeps the last `stepLimit`
 * items; otherwise the first `stepLimit` items are kept. Item i of a path has the key `i_item`.
 */

const SESSION_GAP_MS = 30 * 60 * 1000;

export interface PathSpec {
  cleaning: PathCleaningRule[];
  /** Grouping patterns, each with the matcher its `*` wildcards compile to. */
  groupings: Array<{ pattern: string; matches: (item: string) => boolean }>;
  excluded: ReadonlySet<string>;
  startPoint: string | null;
  endPoint: string | null;
  stepLimit: number;
}

/** One step of a path: its key, the key before it (null first), and ms since the step before. */
export interface PathStep {
  key: string;
  previous: string | null;
  msSincePrevious: number | null;
}

/** `*` matches anything (including nothing); everything else literally; the whole item must match. */
export function wildcardMatcher(pattern: string): (item: string) => boolean {
  const parts = pattern.split('*');
  return (item) => {
    if (parts.length === 1) return item === pattern;
    if (!item.startsWith(parts[0]) || !item.endsWith(parts[parts.length - 1]) || item.length < parts[0].length + parts[parts.length - 1].length) return false;
    let at = parts[0].length;
    const end = item.length - parts[parts.length - 1].length;
    for (const middle of parts.slice(1, -1)) {
      const found = item.indexOf(middle, at);
      if (found < 0 || found + middle.length > end) return false;
      at = found + middle.length;
    }
    return true;
  };
}

/** Each rule's matches replaced by its alias, taken literally, in order. */
export function cleanPathItem(item: string, rules: PathCleaningRule[]): string {
  let cleaned = item;
  for (const rule of rules) cleaned = rule.regex.matcher(cleaned).replaceAll(() => rule.alias);
  return cleaned;
}

function itemOf(raw: string, spec: PathSpec): string | null {
  const cleaned = cleanPathItem(raw, spec.cleaning);
  const grouped = spec.groupings.find((g) => g.matches(cleaned))?.pattern ?? cleaned;
  return spec.excluded.has(grouped) ? null : grouped;
}

/** The cut of one session's items (with their instants) that becomes its path, or null when dropped. */
function cut(items: Array<{ item: string; at: number }>, spec: PathSpec): Array<{ item: string; at: number }> | null {
  let path = items;
  if (spec.startPoint !== null) {
    const start = path.findIndex((step) => step.item === spec.startPoint);
    if (start < 0) return null;
    path = path.slice(start);
  }
  if (spec.endPoint !== null) {
    const end = path.findIndex((step) => step.item === spec.endPoint);
    if (end < 0) return null;
    path = path.slice(0, end + 1);
    return spec.startPoint !== null ? path.slice(0, spec.stepLimit) : path.slice(-spec.stepLimit);
  }
  return path.slice(0, spec.stepLimit);
}

/** One actor's sessions: the items of each, repeats in a row collapsed, with their instants. */
function sessionsOf(times: number[], rawItems: Array<string | null>, spec: PathSpec): Array<Array<{ item: string; at: number }>> {
  const sessions: Array<Array<{ item: string; at: number }>> = [];
  let current: Array<{ item: string; at: number }> = [];
  let lastAt = -Infinity;
  for (let i = 0; i < times.length; i++) {
    const raw = rawItems[i];
    const item = raw === null ? null : itemOf(raw, spec);
    if (item === null) continue;
    if (times[i] - lastAt >= SESSION_GAP_MS && current.length > 0) {
      sessions.push(current);
      current = [];
    }
    lastAt = times[i];
    // A repeat in a row collapses into its last occurrence.
    if (current.length > 0 && current[current.length - 1].item === item) current[current.length - 1] = { item, at: times[i] };
    else current.push({ item, at: times[i] });
  }
  if (current.length > 0) sessions.push(current);
  return sessions;
}

/** The items one actor visits in the sessions that become paths, at any step (before the step limit cuts them). */
export function actorVisitedItems(times: number[], rawItems: Array<string | null>, spec: PathSpec): string[] {
  return sessionsOf(times, rawItems, spec).filter((session) => (cut(session, spec) ?? []).length > 0).flatMap((session) => session.map((step) => step.item));
}

/** Every path of one actor: a list of steps per session. */
export function actorPaths(times: number[], rawItems: Array<string | null>, spec: PathSpec): PathStep[][] {
  const paths: PathStep[][] = [];
  for (const session of sessionsOf(times, rawItems, spec)) {
    const path = cut(session, spec);
    if (!path || path.length === 0) continue;
    paths.push(path.map((step, i) => ({
      key: `${i + 1}_${step.item}`,
      previous: i === 0 ? null : `${i}_${path[i - 1].item}`,
      msSincePrevious: i === 0 ? null : step.at - path[i - 1].at,
    })));
  }
  return paths;
}

/** Edges counted over every path (an actor's several sessions each count), with their mean time in ms. */
export class EdgeTally {
  private readonly edges = new Map<string, { source: string; target: string; value: number; totalMs: number }>();

  add(path: PathStep[]): void {
    for (const step of path) {
      if (step.previous === null) continue;
      const id = `${step.previous}\u0000${step.key}`;
      const edge = this.edges.get(id) ?? { source: step.previous, target: step.key, value: 0, totalMs: 0 };
      edge.value++;
      edge.totalMs += step.msSincePrevious ?? 0;
      this.edges.set(id, edge);
    }
  }

  /**
   * The heaviest edges (ties by source, then target, in byte order) within the weight bounds, at most
   * `limit`; without bounds, edges no longer reachable from a first step once cut are dropped, as PostHog does.
   */
  result(limit: number | null, minWeight: number | null, maxWeight: number | null): PathEdge[] {
    let edges = [...this.edges.values()]
      .filter((e) => (minWeight === null || e.value >= minWeight) && (maxWeight === null || e.value <= maxWeight))
      .sort((a, b) => b.value - a.value || byteOrder(a.source, b.source) || byteOrder(a.target, b.target));
    if (limit !== null) edges = edges.slice(0, limit);
    if (minWeight === null && maxWeight === null) edges = reachableEdges(edges);
    return edges.map((e) => ({ source: e.source, target: e.target, value: e.value, averageConversionTime: e.totalMs / e.value }));
  }
}

/** Which of an actor's paths put them among a persons request's actors. */
export function pathSelected(paths: PathStep[][], keys: { start: string | null; end: string | null; dropoff: string | null }): boolean {
  return paths.some((path) => {
    if (keys.dropoff !== null) return path[path.length - 1].key === keys.dropoff;
    if (keys.start !== null && keys.end !== null) return path.some((step) => step.previous === keys.start && step.key === keys.end);
    if (keys.start !== null) return path.some((step) => step.previous === keys.start);
    if (keys.end !== null) return path.some((step) => step.key === keys.end);
    return true;
  });
}

/** The building rules of a paths query: its cleaning rules compiled, its groupings as matchers. */
export function pathSpecOf(options: PathOptions): PathSpec {
  return {
    cleaning: parsePathCleaningRules(options.cleaningRules),
    groupings: options.groupings.map((pattern) => ({ pattern, matches: wildcardMatcher(pattern) })),
    excluded: new Set(options.excludeEvents),
    startPoint: options.startPoint,
    endPoint: options.endPoint,
    stepLimit: options.stepLimit,
  };
}

import { createHash } from 'node:crypto';
import { isJsonObject } from '../../common/json/json-object';
import { parseId } from '../../common/validation/patterns';
import type { FlagCondition, FlagFilters, PropertyFilter } from '../../kernel/flag-filters';
import type { CohortDefinition } from '../../kernel/cohort-match';
import type { FlagSnapshot, SnapshotFlag } from './flag-snapshot';

/** A serialised definitions body and its ETag, computed once per snapshot. */
export interface DefinitionsDocument {
  json: string;
  etag: string;
}

/**
 * posthog-node evaluates a dependency by key and needs the order to evaluate the chain in:
 * every transitive dependency first, the dependency itself last.
 */
function dependencyChain(snapshot: FlagSnapshot, flagId: number): string[] {
  const chain: string[] = [];
  const visiting = new Set<number>();
  const visit = (id: number): boolean => {
    const flag = snapshot.byId.get(id);
    if (!flag || visiting.has(id)) return false;
    visiting.add(id);
    for (const property of conditionsOf(flag.filters).flatMap((c) => c.properties ?? [])) {
      if (property.type === 'flag' && !chain.includes(keyOf(snapshot, property.key)) && !visit(Number(property.key))) return false;
    }
    visiting.delete(id);
    if (!chain.includes(flag.key)) chain.push(flag.key);
    return true;
  };
  // A missing dependency or a cycle gives an empty chain: the SDK then asks the server.
  return visit(flagId) ? chain : [];
}

function keyOf(snapshot: FlagSnapshot, rawId: string): string {
  return snapshot.byId.get(Number(rawId))?.key ?? rawId;
}

function conditionsOf(filters: FlagFilters): FlagCondition[] {
  return [...(filters.groups ?? []), ...(filters.super_groups ?? []), ...(filters.holdout_groups ?? [])];
}

function rewriteProperty(snapshot: FlagSnapshot, property: PropertyFilter): PropertyFilter {
  if (property?.type !== 'flag') return property;
  const dependency = snapshot.byId.get(Number(property.key));
  return { ...property, key: dependency?.key ?? String(property.key), dependency_chain: dependencyChain(snapshot, Number(property.key)) };
}

function rewriteConditions(snapshot: FlagSnapshot, conditions: FlagCondition[] | undefined): FlagCondition[] | undefined {
  if (!Array.isArray(conditions)) return conditions;
  return conditions.map((c) => (Array.isArray(c.properties) ? { ...c, properties: c.properties.map((p) => rewriteProperty(snapshot, p)) } : c));
}

function servedForSdk(snapshot: FlagSnapshot, filters: FlagFilters): FlagFilters {
  const rewritten: FlagFilters = { ...filters, groups: rewriteConditions(snapshot, filters.groups) ?? [] };
  if (filters.super_groups) rewritten.super_groups = rewriteConditions(snapshot, filters.super_groups);
  return rewritten;
}

/** PostHog's MinimalFeatureFlag. */
export function minimalFlagJson(snapshot: FlagSnapshot, flag: SnapshotFlag, filters: FlagFilters = flag.filters) {
  return {
    id: flag.id,
    team_id: snapshot.projectId,
    name: flag.name,
    key: flag.key,
    filters,
    deleted: false,
    active: flag.active,
    ensure_experience_continuity: flag.ensureExperienceContinuity,
    has_encrypted_payloads: false,
    version: flag.version,
    evaluation_runtime: 'all',
    bucketing_identifier: 'distinct_id',
    evaluation_tags: [],
  };
}

/** A cohort as the SDKs evaluate it: one property group (legacy `groups` become an OR of ANDs). */
export function cohortPropertyGroup(cohort: CohortDefinition): Record<string, unknown> {
  const properties = cohort.filters.properties;
  if (isJsonObject(properties) && Array.isArray(properties.values)) return properties;
  const groups = Array.isArray(cohort.filters.groups) ? cohort.filters.groups.filter(isJsonObject) : [];
  return { type: 'OR', values: groups.map((group) => ({ type: 'AND', values: Array.isArray(group.properties) ? group.properties : [] })) };
}

function cohortIdsIn(node: unknown, into: Set<number>): void {
  if (Array.isArray(node)) return node.forEach((child) => cohortIdsIn(child, into));
  if (!isJsonObject(node)) return;
  if (node.type === 'cohort') {
    const id = parseId(node.value);
    if (id !== null) into.add(id);
  }
  if (Array.isArray(node.values)) cohortIdsIn(node.values, into);
  if (Array.isArray(node.properties)) cohortIdsIn(node.properties, into);
}

/** Every dynamic cohort the flags reference, nested ones included; static cohorts stay server-side. */
function referencedCohorts(snapshot: FlagSnapshot): Record<string, Record<string, unknown>> {
  const pending = new Set<number>();
  snapshot.flags.forEach((flag) => cohortIdsIn(conditionsOf(flag.filters), pending));
  const result: Record<string, Record<string, unknown>> = {};
  for (const id of pending) {
    const cohort = snapshot.cohorts.get(id);
    if (!cohort || cohort.isStatic || String(id) in result) continue;
    const group = cohortPropertyGroup(cohort);
    result[String(id)] = group;
    cohortIdsIn(group, pending); // a Set visits what is added during iteration
  }
  return result;
}

/**
 * `{flags, group_type_mapping, cohorts}` for posthog-node/posthog-python local evaluation. Without
 * `send_cohorts` the cohorts are left out and SDKs ask the server for flags that target them.
 */
export function definitionsDocument(snapshot: FlagSnapshot, sendCohorts: boolean): DefinitionsDocument {
  const body = {
    flags: snapshot.flags.map((flag) => minimalFlagJson(snapshot, flag, servedForSdk(snapshot, flag.filters))),
    group_type_mapping: Object.fromEntries([...snapshot.groupTypes].map(([index, name]) => [String(index), name])),
    cohorts: sendCohorts ? referencedCohorts(snapshot) : {},
  };
  const json = JSON.stringify(body);
  return { json, etag: `"${createHash('sha1').update(json).digest('hex')}"` };
}

import type { FlagFilters, LiveFlag, PropertyFilter } from '../../kernel/flag-filters';
import { servedFilters } from '../../kernel/flag-filters';
import { CohortDefinition, cohortPropertyKeys } from '../../kernel/cohort-match';
import { compileFlag, CompiledFlag } from '../../kernel/compiled-flag';

/** A flag as evaluation and local evaluation read it, with what it needs precomputed. */
export interface SnapshotFlag extends Omit<LiveFlag, 'filters'> {
  /** Stored filters (what the API and local evaluation serve, after `servedFilters`). */
  filters: FlagFilters;
  /** Person property keys its conditions read, its dependencies' included. */
  personKeys: ReadonlySet<string>;
  /** It (or a flag it depends on) targets a cohort: the stored person is always needed. */
  usesCohorts: boolean;
  /** It (or a dependency) buckets on hash-key overrides. */
  usesContinuity: boolean;
  /** Group type indexes it (or a dependency) aggregates by. */
  groupIndexes: ReadonlySet<number>;
  /** Its conditions compiled once for this snapshot: what the request path evaluates. */
  compiled: CompiledFlag;
  /**
   * Its texts in `/decide/` and `/flags/` replies, made by decide-reply-json.ts on the first reply that names it and
   * kept here (undefined until then: the slot exists from the start, so every snapshot flag keeps one shape).
   */
  replyTexts: object | undefined;
}

/** A set of flags to evaluate together, with the union of what they need loaded. */
export interface FlagSet {
  flags: SnapshotFlag[];
  personKeys: string[];
  usesCohorts: boolean;
  groupIndexes: number[];
  /** Keys of the flags that bucket on hash-key overrides. */
  continuityKeys: string[];
}

export function flagSet(flags: SnapshotFlag[]): FlagSet {
  const personKeys = new Set<string>();
  const groupIndexes = new Set<number>();
  for (const flag of flags) {
    flag.personKeys.forEach((key) => personKeys.add(key));
    flag.groupIndexes.forEach((index) => groupIndexes.add(index));
  }
  return {
    flags,
    personKeys: [...personKeys],
    usesCohorts: flags.some((flag) => flag.usesCohorts),
    groupIndexes: [...groupIndexes],
    continuityKeys: flags.filter((flag) => flag.usesContinuity).map((flag) => flag.key),
  };
}

/** Everything evaluation needs about a project, loaded at one `flags_version`. */
export interface FlagSnapshot {
  projectId: number;
  version: string;
  /** Live (not deleted) flags, newest first; inactive ones too (local evaluation and my_flags serve them). */
  flags: SnapshotFlag[];
  /** The active flags: what nearly every `/decide/` evaluates, so its needs are summed up once. */
  activeFlags: FlagSet;
  byId: ReadonlyMap<number, SnapshotFlag>;
  byKey: ReadonlyMap<string, SnapshotFlag>;
  cohorts: ReadonlyMap<number, CohortDefinition>;
  /** Group type index → name. */
  groupTypes: ReadonlyMap<number, string>;
  /**
   * Every property key a condition of a flag or a cohort reads, person or group: evaluation copies only these of the
   * stored and the sent properties, so a request with thousands of properties costs what a small one does.
   */
  propertyKeys: ReadonlySet<string>;
}


interface DirectNeeds {
  personKeys: Set<string>;
  usesCohorts: boolean;
  dependencies: number[];
  groupIndex: number | null;
}

const PERSON_TYPES = new Set([undefined, null, 'person', 'event']);

function conditionProperties(filters: FlagFilters): PropertyFilter[] {
  const sets = [...(filters.groups ?? []), ...(filters.super_groups ?? []), ...(filters.holdout_groups ?? [])];
  return sets.flatMap((set) => (Array.isArray(set?.properties) ? set.properties : []));
}

/** The property keys of every flag's conditions (person and group alike) and of every cohort's definition. */
function propertyKeysRead(stored: LiveFlag[], cohorts: CohortDefinition[]): Set<string> {
  const keys = new Set<string>();
  for (const flag of stored) {
    for (const property of conditionProperties(servedFilters(flag.filters))) {
      if (property?.type !== 'cohort' && property?.type !== 'flag' && property?.key !== undefined) keys.add(String(property.key));
    }
  }
  for (const cohort of cohorts) cohortPropertyKeys(cohort, keys);
  return keys;
}

function directNeeds(filters: FlagFilters): DirectNeeds {
  const groupIndex = typeof filters.aggregation_group_type_index === 'number' ? filters.aggregation_group_type_index : null;
  const needs: DirectNeeds = { personKeys: new Set(), usesCohorts: false, dependencies: [], groupIndex };
  for (const property of conditionProperties(filters)) {
    if (property?.type === 'cohort') needs.usesCohorts = true;
    else if (property?.type === 'flag') needs.dependencies.push(Number(property.key));
    else if (groupIndex === null && PERSON_TYPES.has(property?.type)) needs.personKeys.add(String(property.key));
  }
  return needs;
}

/** Folds each flag's dependencies' needs into its own (cycles are refused at write time; guarded anyway). */
function withDependencies(stored: LiveFlag[], direct: Map<number, DirectNeeds>): SnapshotFlag[] {
  const continuity = new Map(stored.map((flag) => [flag.id, flag.ensureExperienceContinuity && direct.get(flag.id)!.groupIndex === null]));
  return stored.map((flag) => {
    const result = { personKeys: new Set<string>(), usesCohorts: false, usesContinuity: false, groupIndexes: new Set<number>() };
    const seen = new Set<number>();
    const visit = (id: number): void => {
      const needs = direct.get(id);
      if (!needs || seen.has(id)) return;
      seen.add(id);
      needs.personKeys.forEach((key) => result.personKeys.add(key));
      result.usesCohorts ||= needs.usesCohorts;
      result.usesContinuity ||= continuity.get(id) === true;
      if (needs.groupIndex !== null) result.groupIndexes.add(needs.groupIndex);
      needs.dependencies.forEach(visit);
    };
    visit(flag.id);
    const filters = servedFilters(flag.filters);
    return { ...pick(flag), filters, ...result, compiled: compileFlag({ ...pick(flag), filters }), replyTexts: undefined };
  });
}

function pick(flag: LiveFlag) {
  const { id, key, name, active, ensureExperienceContinuity, version } = flag;
  return { id, key, name, active, ensureExperienceContinuity, version };
}

export function buildSnapshot(
  projectId: number,
  version: string,
  stored: LiveFlag[],
  cohorts: CohortDefinition[],
  groupTypes: Array<{ index: number; name: string }>,
): FlagSnapshot {
  const direct = new Map(stored.map((flag) => [flag.id, directNeeds(servedFilters(flag.filters))]));
  const flags = withDependencies(stored, direct);
  return {
    projectId,
    version,
    flags,
    activeFlags: flagSet(flags.filter((flag) => flag.active)),
    byId: new Map(flags.map((flag) => [flag.id, flag])),
    byKey: new Map(flags.map((flag) => [flag.key, flag])),
    cohorts: new Map(cohorts.map((cohort) => [cohort.id, cohort])),
    groupTypes: new Map(groupTypes.map((type) => [type.index, type.name])),
    propertyKeys: propertyKeysRead(stored, cohorts),
  };
}

import { ApiError } from '../../common/errors/api-error';
import { isJsonObject } from '../../common/json/json-object';
import { parseId } from '../../common/validation/patterns';

export interface FlagNode {
  id: number;
  key: string;
  filters: Record<string, unknown>;
}

/** Ids of flags a flag's conditions depend on (`type: "flag"` properties). */
export function dependencyIds(filters: Record<string, unknown>): number[] {
  const groups = Array.isArray(filters.groups) ? filters.groups : [];
  const ids: number[] = [];
  for (const group of groups) {
    const properties = isJsonObject(group) && Array.isArray(group.properties) ? group.properties : [];
    for (const p of properties) {
      const id = isJsonObject(p) && p.type === 'flag' ? parseId(p.key) : null;
      if (id !== null) ids.push(id);
    }
  }
  return ids;
}

function invalid(detail: string): ApiError {
  return ApiError.validation(detail, 'filters');
}

/**
 * Dependencies must be other live flags of the project and must not form a cycle
 * `self` is the flag being written (id null while it is created).
 */
export function checkDependencies(self: Omit<FlagNode, 'id'> & { id: number | null }, referenced: number[], live: FlagNode[]): void {
  const byId = new Map(live.map((flag) => [flag.id, flag]));
  for (const id of referenced) {
    if (id === self.id) throw invalid('A feature flag cannot depend on itself.');
    if (!byId.has(id)) throw invalid(`Flag dependency references a flag that does not exist: ${id}.`);
  }
  if (self.id === null) return; // a new flag has no dependants yet, so it cannot close a cycle
  byId.set(self.id, { id: self.id, key: self.key, filters: self.filters });
  const cycle = findCycle(self.id, byId);
  if (cycle) throw invalid(`Circular dependency detected: ${cycle.map((id) => byId.get(id)!.key).join(' → ')}`);
}

function findCycle(start: number, byId: Map<number, FlagNode>): number[] | null {
  const path: number[] = [];
  const done = new Set<number>();
  const visit = (id: number): number[] | null => {
    const at = path.indexOf(id);
    if (at >= 0) return [...path.slice(at), id];
    if (done.has(id) || !byId.has(id)) return null;
    path.push(id);
    for (const next of dependencyIds(byId.get(id)!.filters)) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    done.add(id);
    return null;
  };
  return visit(start);
}

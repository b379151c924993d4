import { RE2JS } from 're2js';

/**
 * Path cleaning rules (`[{"regex": "...", "alias": "..."}]`), PostHog's `path_cleaning_filters`: each
 * regex, in order, replaces what it matches in a path item by its alias (taken literally). Insights apply them in
 * ClickHouse, whose regexes are RE2's, as these are: a rule that compiles here runs there, in time linear in
 * the input, so no rule can hold a request.
 */

export interface PathCleaningRule {
  regex: RE2JS;
  alias: string;
}

export class PathCleaningError extends Error {}

export const MAX_PATH_CLEANING_RULES = 50;

export function parsePathCleaningRules(raw: unknown): PathCleaningRule[] {
  if (!Array.isArray(raw)) throw new PathCleaningError('must be a JSON list of {"regex": "...", "alias": "..."}');
  if (raw.length > MAX_PATH_CLEANING_RULES) throw new PathCleaningError(`holds at most ${MAX_PATH_CLEANING_RULES} rules`);
  return raw.map((rule, i) => {
    if (typeof rule !== 'object' || rule === null || typeof (rule as Record<string, unknown>).regex !== 'string') {
      throw new PathCleaningError(`rule ${i} needs a regex (text) and an alias`);
    }
    const { regex, alias } = rule as Record<string, unknown>;
    if (alias !== undefined && alias !== null && typeof alias !== 'string') throw new PathCleaningError(`rule ${i}'s alias must be text`);
    try {
      return { regex: RE2JS.compile(regex as string), alias: (alias as string | undefined) ?? '' };
    } catch (error) {
      throw new PathCleaningError(`rule ${i}'s regex ${JSON.stringify(regex)} does not compile (${(error as Error).message})`);
    }
  });
}

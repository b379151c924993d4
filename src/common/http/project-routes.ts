/** Where PostHog's environment-scoped paths start (no leading slash, as controllers name paths). */
export const ENVIRONMENT_PATH_PREFIX = 'api/environments/';

/**
 * The paths of a project's resource that PostHog serves under both `/api/projects/:project_id/` and its newer name
 * for a project's data, `/api/environments/:project_id/` (events, persons, insights, query; an environment is a
 * project here, as PostHog now has one environment per project). Flags, cohorts, definitions and actions stay
 * project-only, as in PostHog. The environment paths are documented as deprecated duplicates, as PostHog marks them.
 */
export function projectAndEnvironmentPaths(resource = ''): string[] {
  const tail = resource === '' ? '' : `/${resource}`;
  return [`api/projects/:project_id${tail}`, `${ENVIRONMENT_PATH_PREFIX}:project_id${tail}`];
}

/** `<object>:read` or `<object>:write`, as PostHog's scopes.py defines them. */
export type Scope = `${string}:${'read' | 'write'}`;

export const SCOPE_OBJECTS = [
  'action', 'activity_log', 'annotation', 'cohort', 'dashboard', 'event_definition', 'experiment', 'export',
  'feature_flag', 'group', 'insight', 'organization', 'organization_member', 'person', 'plugin', 'project',
  'property_definition', 'query', 'session_recording', 'user', 'webhook',
] as const;

const SCOPE_SHAPE = /^([a-z_]+):(read|write)$/;

export function isValidScope(scope: string): boolean {
  if (scope === '*') return true;
  const match = SCOPE_SHAPE.exec(scope);
  return match !== null && (SCOPE_OBJECTS as readonly string[]).includes(match[1]);
}

/**
 * Does a key with `granted` scopes satisfy `required`? `*` grants everything, `x:write` implies
 * `x:read`, and keys without scopes (legacy keys) bypass the check, as in PostHog.
 */
export function scopeSatisfied(granted: string[] | null, required: Scope): boolean {
  if (!granted || granted.length === 0) return true;
  if (granted.includes('*') || granted.includes(required)) return true;
  const [object, action] = required.split(':');
  return action === 'read' && granted.includes(`${object}:write`);
}

/** The projects a personal key is limited to; null when it reaches every project its user can. */
export function projectRestriction(key: { scopedProjects: number[] | null }): ReadonlySet<number> | null {
  return key.scopedProjects && key.scopedProjects.length > 0 ? new Set(key.scopedProjects) : null;
}

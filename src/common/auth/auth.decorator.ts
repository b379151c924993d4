import { SetMetadata } from '@nestjs/common';
import type { Scope } from './scopes';

export const AUTH_METADATA = 'hogbase:auth';

/** What a route demands of its caller. Every route must declare one; the boot-time audit checks. */
export type AuthRequirement =
  | {
      kind: 'personalKey';
      scope: Scope;
      /** Route parameter that names a project (numeric id or `@current`); resolved and access-checked. */
      projectParam?: string;
      /** Route parameter that names an organization (uuid or `@current`); the caller must be a member. */
      organizationParam?: string;
      /** The project is the one whose API key is in `?token=` (the user's current project without one). */
      projectFromToken?: boolean;
      /**
       * A key limited to some projects may call this route although it names no project, because the handler
       * shows only those projects. Without it such a key is refused on every route that names no project.
       */
      servesRestrictedKeys?: boolean;
    }
  | {
      kind: 'projectKey';
      /** What a personal key (phx_, with `project_id`) sent in place of the project key must be granted. */
      personalKeyScopes: Scope[];
      /** Capture: a well-formed key that cannot be checked (database down) is accepted and checked by the worker. */
      failOpen?: boolean;
      /** The key comes in `Authorization: Bearer` instead of the payload (capture v1). */
      bearer?: boolean;
    }
  /** Operations endpoints (`/metrics`): the configured METRICS_TOKEN as `Authorization: Bearer`. */
  | { kind: 'metricsToken' }
  | { kind: 'public' };

export type PersonalKeyOptions = Omit<Extract<AuthRequirement, { kind: 'personalKey' }>, 'kind' | 'scope'>;
export type ProjectKeyOptions = Omit<Extract<AuthRequirement, { kind: 'projectKey' }>, 'kind'>;

/** Management routes: `Authorization: Bearer phx_…` with the given scope. */
export const PersonalKeyAuth = (scope: Scope, options: PersonalKeyOptions = {}) =>
  SetMetadata(AUTH_METADATA, { kind: 'personalKey', scope, ...options } satisfies AuthRequirement);

/** Public SDK routes: the project API key in the body or query (or a personal key with `project_id`). */
export const ProjectKeyAuth = (options: ProjectKeyOptions) =>
  SetMetadata(AUTH_METADATA, { kind: 'projectKey', ...options } satisfies AuthRequirement);

/** `/metrics`: counters of every tenant, so only a scraper holding METRICS_TOKEN; off while it is unset. */
export const MetricsTokenAuth = () => SetMetadata(AUTH_METADATA, { kind: 'metricsToken' } satisfies AuthRequirement);

/** Routes anyone may call: health checks, CORS preflights, remote config (the token is in the path). */
export const PublicRoute = () => SetMetadata(AUTH_METADATA, { kind: 'public' } satisfies AuthRequirement);

import { ApiError } from '../errors/api-error';
import type { PersonalKeySource } from './key-sources';

/** The exact bodies of CONTRACT §2 and reference/management-api.md §1, in one place. */
export const AuthErrors = {
  notAuthenticated: () =>
    new ApiError(401, 'authentication_error', 'not_authenticated', 'Authentication credentials were not provided.', null, {
      'www-authenticate': 'Bearer',
    }),
  invalidPersonalKey: (source: PersonalKeySource) =>
    new ApiError(
      401,
      'authentication_error',
      'authentication_failed',
      `Personal API key found in request ${source} is invalid.`,
      null,
      { 'www-authenticate': 'Bearer' },
    ),
  missingScope: (scope: string) => ApiError.permissionDenied(`API key missing required scope '${scope}'`),
  projectNotFound: () => ApiError.notFound('Project not found.'),
  organizationNotFound: () => ApiError.notFound('Organization not found.'),
  noProjectAccess: () => ApiError.permissionDenied("You don't have access to the project."),
  keyNotScopedToProject: (projectId: string) =>
    ApiError.permissionDenied(`API key does not have access to the requested project: ID ${projectId}.`),
  // Public (SDK) endpoints: PostHog's capture/decide bodies.
  missingProjectKey: () =>
    new ApiError(
      401,
      'authentication_error',
      'missing_api_key',
      'API key not provided. You can find your project API key in PostHog project settings.',
    ),
  invalidProjectKey: () =>
    new ApiError(
      401,
      'authentication_error',
      'invalid_api_key',
      'Project API key invalid. You can find your project API key in PostHog project settings.',
    ),
  malformedProjectKey: (reason: string) =>
    new ApiError(401, 'authentication_error', reason, `Provided API key is not valid: ${reason}`),
  invalidPersonalKeyOnPublicRoute: () =>
    new ApiError(401, 'authentication_error', 'invalid_personal_api_key', 'Invalid Personal API key.'),
  invalidProject: () => new ApiError(400, 'validation_error', 'invalid_project', 'Invalid Project ID.', 'project_id'),
};

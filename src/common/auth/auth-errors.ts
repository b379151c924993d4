import { ApiError } from '../errors/api-error';
import type { PersonalKeySource } from './key-sources';

const WHERE_PROJECT_KEY =
  'The project API key is printed on the first boot and is the "api_token" of GET /api/projects/@current/ (or `npm run cli -- projects list`).';
const PROJECT_KEY_ON_API =
  ' This is a project API key (phc_), which SDKs use; /api/ routes take a personal API key (phx_) as "Authorization: Bearer phx_…". Create one with `npm run cli -- keys create --email <you>` or POST /api/personal_api_keys/.';

/** The exact bodies of PostHog's authentication errors (posthog/auth.py, rust/capture), in one place. */
export const AuthErrors = {
  sessionEnded: () =>
    new ApiError(401, 'authentication_error', 'session_ended', 'Your session has ended (signed out, expired, or the password changed): sign in again.'),
  notAuthenticated: () =>
    new ApiError(401, 'authentication_error', 'not_authenticated', 'Authentication credentials were not provided.', null, {
      'www-authenticate': 'Bearer',
    }),
  invalidPersonalKey: (source: PersonalKeySource, token: string) => {
    const hint = token.startsWith('phc_') ? PROJECT_KEY_ON_API : ' Check the key, or create one with `npm run cli -- keys create --email <you>`.';
    return new ApiError(
      401,
      'authentication_error',
      'authentication_failed',
      `Personal API key found in request ${source} is invalid.${hint}`,
      null,
      { 'www-authenticate': 'Bearer' },
    );
  },
  missingScope: (scope: string) => ApiError.permissionDenied(`API key missing required scope '${scope}'`),
  projectNotFound: () => ApiError.notFound('Project not found.'),
  organizationNotFound: () => ApiError.notFound('Organization not found.'),
  noProjectAccess: () => ApiError.permissionDenied("You don't have access to the project."),
  keyNotScopedToProject: (projectId: string) =>
    ApiError.permissionDenied(`API key does not have access to the requested project: ID ${projectId}.`),
  // PostHog's words: a key limited to projects reaches only routes that name one of them.
  restrictedKeyOutsideProjects: () =>
    ApiError.permissionDenied(
      'API key with scoped projects are only supported on project-based views. Use a key without a project restriction for this route.',
    ),
  tooManyFailedAttempts: (seconds: number) =>
    new ApiError(
      429,
      'throttled_error',
      'throttled',
      `Request was throttled: too many requests with an invalid personal API key came from this address. Expected available in ${seconds} seconds.`,
      null,
      { 'retry-after': String(seconds) },
    ),
  // /metrics: how to turn it on, and a scraper without the right METRICS_TOKEN.
  metricsOff: () =>
    ApiError.permissionDenied(
      'Metrics are off. Set METRICS_TOKEN (16 to 512 visible ASCII characters) and send it as "Authorization: Bearer <METRICS_TOKEN>" (Prometheus: the scrape job\'s authorization credentials).',
    ),
  metricsTokenMissing: () =>
    new ApiError(401, 'authentication_error', 'not_authenticated', 'Authentication credentials were not provided. Send METRICS_TOKEN as "Authorization: Bearer <METRICS_TOKEN>".', null, {
      'www-authenticate': 'Bearer',
    }),
  metricsTokenInvalid: () =>
    new ApiError(401, 'authentication_error', 'authentication_failed', 'The bearer token is not the METRICS_TOKEN this service was started with.', null, {
      'www-authenticate': 'Bearer',
    }),
  // Public (SDK) endpoints: PostHog's capture/decide bodies.
  missingProjectKey: () =>
    new ApiError(
      401,
      'authentication_error',
      'missing_api_key',
      `API key not provided. Send the project API key (phc_) as "api_key" or "token" in the body, or as ?token=. ${WHERE_PROJECT_KEY}`,
    ),
  invalidProjectKey: () =>
    new ApiError(
      401,
      'authentication_error',
      'invalid_api_key',
      `Project API key invalid: no project has this key. ${WHERE_PROJECT_KEY}`,
    ),
  malformedProjectKey: (reason: string) =>
    new ApiError(401, 'authentication_error', reason, `Provided API key is not valid: ${reason}`),
  invalidPersonalKeyOnPublicRoute: () =>
    new ApiError(401, 'authentication_error', 'invalid_personal_api_key', 'Invalid Personal API key.'),
  invalidProject: () =>
    new ApiError(
      400,
      'validation_error',
      'invalid_project',
      `Invalid Project ID. A personal API key (phx_) was sent as the project API key: SDKs and capture take the project API key (phc_). ${WHERE_PROJECT_KEY} To send with a personal key instead, add "project_id".`,
      'project_id',
    ),
};

import type { OpenAPIObject } from '@nestjs/swagger';
import { ENVIRONMENT_PATH_PREFIX } from '../http/project-routes';

type Operation = {
  operationId?: string;
  summary?: string;
  deprecated?: boolean;
  responses?: Record<string, unknown>;
  parameters?: Array<{ name?: string; in?: string; $ref?: string }>;
  security?: unknown[];
};

const PROJECT_PREFIX = '/api/projects/';
const ENVIRONMENT_PREFIX = `/${ENVIRONMENT_PATH_PREFIX}`;
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
const PATH_PARAMETER_DESCRIPTIONS: Record<string, string> = {
  project_id: 'Project id, or `@current` for the key owner\'s current project.',
  organization_id: 'Organization id (uuid), or `@current`.',
};

/**
 * Fills in what the decorators leave out, so the document passes an OpenAPI linter: a server, a summary for every
 * operation (from its handler's name when it has no doc comment), every `{parameter}` of a path declared (routes whose
 * project is resolved by the auth guard take no `@Param`), and an explicit `security: []` on the public SDK routes,
 * which authenticate with the project key inside the payload rather than with a header; and the error shape every
 * route answers with, as the `4XX` response of operations that document no error of their own. The
 * `/api/environments/` duplicates of project routes get an operation id of their own and are marked deprecated,
 * as PostHog marks them: `/api/projects/` is the path to use.
 */
export function completeOpenApiDocument(document: OpenAPIObject): OpenAPIObject {
  if (!document.servers || document.servers.length === 0) document.servers = [{ url: '/', description: 'This service' }];
  document.info.license ??= { name: 'MIT', url: 'https://opensource.org/licenses/MIT' };
  document.components ??= {};
  document.components.schemas = { ...document.components.schemas, ApiError: API_ERROR_SCHEMA };
  for (const [path, item] of Object.entries(document.paths)) {
    const names = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
    const twin = path.startsWith(ENVIRONMENT_PREFIX) ? PROJECT_PREFIX + path.slice(ENVIRONMENT_PREFIX.length)
      : path.startsWith(PROJECT_PREFIX) ? ENVIRONMENT_PREFIX + path.slice(PROJECT_PREFIX.length) : null;
    const paired = twin !== null && twin in document.paths;
    for (const method of METHODS) {
      const operation = (item as Record<string, Operation | undefined>)[method];
      if (!operation) continue;
      // A controller served under both a project and an environment path gets `[i]` after its ids: the project
      // path keeps the plain id, the environment path is told apart below.
      if (paired && operation.operationId) operation.operationId = operation.operationId.replace(/\[\d+\]$/, '');
      operation.summary ??= summaryFromOperationId(operation.operationId, method, path);
      if (paired && path.startsWith(ENVIRONMENT_PREFIX)) markEnvironmentDuplicate(operation);
      declarePathParameters(operation, names);
      operation.security ??= [];
      operation.responses ??= {};
      if (!Object.keys(operation.responses).some((status) => status.startsWith('4'))) operation.responses['4XX'] = API_ERROR_RESPONSE;
    }
  }
  return document;
}

const API_ERROR_SCHEMA = {
  type: 'object',
  description: "Every error: PostHog's shape. `attr` names the offending field when there is one.",
  required: ['type', 'code', 'detail', 'attr'],
  properties: {
    type: { type: 'string', example: 'validation_error' },
    code: { type: 'string', example: 'invalid_input' },
    detail: { type: 'string', example: 'This field is required.' },
    attr: { type: 'string', nullable: true, example: 'key' },
  },
};
const API_ERROR_RESPONSE = {
  description: 'A refused request (bad input, missing or wrong key, not found…) as {type, code, detail, attr}.',
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ApiError' } } },
};

function markEnvironmentDuplicate(operation: Operation): void {
  if (operation.operationId && !operation.operationId.endsWith('_environment')) operation.operationId = `${operation.operationId}_environment`;
  operation.summary = `${operation.summary} (environment path, deprecated: use /api/projects/)`;
  operation.deprecated = true;
}

function declarePathParameters(operation: Operation, names: string[]): void {
  const declared = new Set((operation.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name));
  for (const name of names) {
    if (declared.has(name)) continue;
    operation.parameters = [
      ...(operation.parameters ?? []),
      { name, in: 'path', required: true, schema: { type: 'string' }, description: PATH_PARAMETER_DESCRIPTIONS[name] } as never,
    ];
  }
}

/** `FeatureFlagsController_forbidHardDelete` → "Feature flags: forbid hard delete". */
export function summaryFromOperationId(operationId: string | undefined, method: string, path: string): string {
  const [controller, handler] = (operationId ?? '').split('_');
  if (!controller || !handler) return `${method.toUpperCase()} ${path}`;
  const words = (text: string) => text.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  const resource = words(controller.replace(/Controller$/, ''));
  return `${resource.charAt(0).toUpperCase()}${resource.slice(1)}: ${words(handler)}`;
}

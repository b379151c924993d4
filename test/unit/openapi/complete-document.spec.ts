import type { OpenAPIObject } from '@nestjs/swagger';
import { completeOpenApiDocument, summaryFromOperationId } from '../../../src/common/openapi/complete-document';
import { openApiLintErrors } from '../../support/openapi-lint';

const bare = (): OpenAPIObject => ({
  openapi: '3.0.0',
  info: { title: 't', version: '1' },
  paths: {
    '/api/projects/{project_id}/feature_flags/{id}': {
      get: { operationId: 'FeatureFlagsController_retrieve', parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }], responses: { '200': { description: 'ok' } }, security: [{ bearer: [] }] },
    },
    '/capture': { post: { operationId: 'CaptureController_capture', summary: 'Capture events', responses: { '200': { description: 'ok' } } } },
  },
  components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
});

describe(completeOpenApiDocument.name, () => {
  it('turns a document the linter refuses into one it accepts', async () => {
    expect(await openApiLintErrors(JSON.stringify(bare()))).not.toEqual([]);
    expect(await openApiLintErrors(JSON.stringify(completeOpenApiDocument(bare())))).toEqual([]);
  });

  it('declares the path parameters a guard resolves, keeps what is declared, and marks public routes', () => {
    const sut = completeOpenApiDocument(bare());
    const flag = sut.paths['/api/projects/{project_id}/feature_flags/{id}'].get!;
    expect(flag.parameters!.map((p) => ('name' in p ? p.name : null))).toEqual(['id', 'project_id']);
    expect(flag.summary).toBe('Feature flags: retrieve');
    expect(flag.security).toEqual([{ bearer: [] }]);
    const capture = sut.paths['/capture'].post!;
    expect([capture.summary, capture.security]).toEqual(['Capture events', []]);
    expect(sut.servers).toEqual([{ url: '/', description: 'This service' }]);
  });

  it.each([
    ['RoleAccessController_forbidHardDelete', 'Role access: forbid hard delete'],
    ['HealthController_readyz', 'Health: readyz'],
    [undefined, 'GET /x'],
  ])('summarises %s as %s', (operationId, summary) => {
    expect(summaryFromOperationId(operationId, 'get', '/x')).toBe(summary);
  });
});

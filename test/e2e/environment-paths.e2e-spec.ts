import { ingestBatch } from '../support/ingestion';
import { filterQuery as q } from '../support/insights';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * PostHog serves a project's events, persons, insights and query under `/api/environments/:id/` too, the paths its
 * newer docs and tooling use (an environment is the project here); flags, cohorts and definitions are project-only.
 */
describe('Environment paths', () => {
  let t: TestApp;
  const both = (tail: string) => [`/api/projects/${t.keys.projectId}/${tail}`, `/api/environments/${t.keys.projectId}/${tail}`];

  beforeAll(async () => {
    t = await startTestApp({ env: { ROLE: 'all' } });
    await ingestBatch(t, t.keys.projectApiKey, [
      { event: '$pageview', distinct_id: 'alice', timestamp: '2026-01-01T10:00:00Z', properties: { $set: { email: 'alice@example.com' } } },
      { event: '$pageview', distinct_id: 'bob', timestamp: '2026-01-02T10:00:00Z' },
    ]);
  });
  afterAll(() => t.close());

  it.each([
    ['events/?limit=10'],
    ['persons/'],
    [`insights/trend/?${q({ events: [{ id: '$pageview' }], date_from: '2026-01-01', date_to: '2026-01-02' })}`],
  ])('answers GET %s the same under both paths', async (tail) => {
    const [project, environment] = await Promise.all(both(tail).map((path) => t.http.get(path)));
    expect([environment.status, project.status]).toEqual([200, 200]);
    const stable = (body: Record<string, unknown>) => JSON.stringify({ ...body, last_refresh: null, is_cached: null, next: null });
    expect(stable(environment.body)).toEqual(stable(project.body));
  });

  it('runs a query node under both paths', async () => {
    const query = { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange: { date_from: '2026-01-01', date_to: '2026-01-02' } };
    const [project, environment] = await Promise.all(both('query/').map((path) => t.http.post(path, { query })));
    expect([environment.status, environment.body.results[0].data]).toEqual([200, project.body.results[0].data]);
  });

  it('keeps flags, cohorts and definitions project-only, as PostHog does', async () => {
    for (const tail of ['feature_flags/', 'cohorts/', 'event_definitions/']) {
      const [project, environment] = await Promise.all(both(tail).map((path) => t.http.get(path)));
      expect([project.status, environment.status]).toEqual([200, 404]);
    }
  });

  it('documents the environment paths as deprecated duplicates with operation ids of their own', async () => {
    const { body } = await t.http.get('/api/schema/', { key: null });
    const environment = body.paths['/api/environments/{project_id}/events'].get;
    const project = body.paths['/api/projects/{project_id}/events'].get;
    expect([environment.deprecated, environment.operationId]).toEqual([true, `${project.operationId}_environment`]);
    expect(project.deprecated).toBeUndefined();
    const ids = Object.values(body.paths).flatMap((item) => Object.values(item as Record<string, { operationId?: string }>).map((op) => op.operationId));
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
  });
});

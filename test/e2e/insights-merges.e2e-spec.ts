import { ingestBatch } from '../support/ingestion';
import { filterQuery as q, followUrl } from '../support/insights';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * Persons merged after the copy holds their events: the copy keeps each event under the person it was copied with
 * and records an override for its distinct id, which every insight reads (a project without overrides joins none).
 * By hand: one and two view a page on Feb 1 (two persons); then two is merged into one: one person, with both ids.
 */
describe('Insights after a merge', () => {
  let t: TestApp;
  let base: string;
  const pv = (distinct_id: string, timestamp: string, email: string) => ({ event: '$pageview', distinct_id, timestamp, properties: { $set: { email } } });
  const dau = async () => {
    const res = await t.http.get(`${base}/insights/trend/?${q({ events: [{ id: '$pageview', math: 'dau' }], date_from: '2026-02-01', date_to: '2026-02-01', refresh: true })}`);
    expect(res.status).toBe(200);
    return res.body.result[0];
  };

  beforeAll(async () => {
    t = await startTestApp({ env: { ROLE: 'all' } });
    base = `/api/projects/${t.keys.projectId}`;
  });
  afterAll(() => t.close());

  it('counts persons merged after their events were copied as one, in the number and its persons', async () => {
    await ingestBatch(t, t.keys.projectApiKey, [pv('one', '2026-02-01T10:00:00Z', 'one@example.com'), pv('two', '2026-02-01T11:00:00Z', 'two@example.com')]);
    const before = await dau();
    expect(before.data).toEqual([2]);

    await ingestBatch(t, t.keys.projectApiKey, [{ event: '$merge_dangerously', distinct_id: 'one', timestamp: '2026-02-01T12:00:00Z', properties: { alias: 'two' } }]);
    const after = await dau();
    expect(after.data).toEqual([1]);
    const persons = await followUrl(t, after.persons_urls[0].url);
    expect(persons.results[0].people.map((p: { distinct_ids: string[] }) => [...p.distinct_ids].sort())).toEqual([['one', 'two']]);
  });
});

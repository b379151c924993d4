import { PostHog } from 'posthog-node';
import { waitForQueuesIdle } from '../support/ingestion';
import { personByDistinctId } from '../support/persons';
import { startTestApp, TestApp } from '../support/test-app';

/** The real posthog-node client against the running server: what teams' backends do. */
describe('posthog-node', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ env: { ROLE: 'all' } });
  });
  afterAll(() => t.close());

  describe.each([
    ['gzip (the default)', false],
    ['no compression', true],
  ])('with %s', (_label, disableCompression) => {
    const prefix = disableCompression ? 'plain' : 'gzip';

    it('delivers captures, identify, alias, $set and groupIdentify, flushing on shutdown', async () => {
      // Watch (not change) what the SDK puts on the wire.
      const encodings: Array<string | null> = [];
      const realFetch = globalThis.fetch;
      globalThis.fetch = (async (url: string | URL | Request, init?: RequestInit) => {
        if (String(url).includes('/batch')) encodings.push(new Headers(init?.headers).get('content-encoding'));
        return realFetch(url, init);
      }) as typeof fetch;
      const client = new PostHog(t.keys.projectApiKey, { host: t.baseUrl, flushAt: 5, flushInterval: 60_000, disableCompression, fetchRetryCount: 0 });
      const anon = `${prefix}-anon`;
      const user = `${prefix}-user`;
      for (let i = 0; i < 12; i++) client.capture({ distinctId: anon, event: 'page_viewed', properties: { i, $set: { last_page: i } } });
      client.identify({ distinctId: user, properties: { email: `${prefix}@example.com`, $anon_distinct_id: anon } });
      client.alias({ distinctId: user, alias: `${prefix}-alias` });
      client.capture({ distinctId: user, event: 'purchased', groups: { company: `${prefix}-acme` }, properties: { amount: 42 } });
      client.groupIdentify({ groupType: 'company', groupKey: `${prefix}-acme`, properties: { name: 'Acme' } });
      // Fewer than flushAt are still queued here: shutdown must flush them.
      await client.shutdown();
      globalThis.fetch = realFetch;
      await waitForQueuesIdle(t);
      expect(encodings.length).toBeGreaterThanOrEqual(1);
      expect(new Set(encodings)).toEqual(new Set([disableCompression ? null : 'gzip']));

      const events = await t.sql<{ event: string; distinct_id: string; properties: Record<string, any> }>(
        `SELECT event, distinct_id, properties FROM event WHERE distinct_id IN ($1, $2) OR properties->>'$group_key' = $3 ORDER BY timestamp`,
        [anon, user, `${prefix}-acme`],
      );
      expect(events.filter((e) => e.event === 'page_viewed')).toHaveLength(12);
      expect(events.map((e) => e.event)).toEqual(expect.arrayContaining(['$identify', '$create_alias', 'purchased', '$groupidentify']));
      const purchased = events.find((e) => e.event === 'purchased')!;
      expect(purchased.properties).toMatchObject({ amount: 42, $groups: { company: `${prefix}-acme` }, $lib: 'posthog-node' });
      const person = await personByDistinctId(t, user);
      expect(person?.distinct_ids).toEqual([`${prefix}-alias`, anon, user].sort());
      expect(person?.properties).toMatchObject({ email: `${prefix}@example.com`, last_page: 11 });
      expect(person?.is_identified).toBe(true);
      const [group] = await t.sql(`SELECT properties FROM "group" WHERE group_key = $1`, [`${prefix}-acme`]);
      expect(group).toEqual({ properties: { name: 'Acme' } });
    });
  });

  it('keeps the uuid across a retry after a lost reply, so the event is stored once', async () => {
    const client = new PostHog(t.keys.projectApiKey, { host: t.baseUrl, flushAt: 1, fetchRetryCount: 0 });
    const uuid = '01890f9e-1111-7000-8000-000000000001';
    client.capture({ distinctId: 'retry', event: 'retried', uuid });
    client.capture({ distinctId: 'retry', event: 'retried', uuid });
    await client.shutdown();
    await waitForQueuesIdle(t);
    expect(await t.sql(`SELECT uuid::text FROM event WHERE event = 'retried'`)).toEqual([{ uuid }]);
  });
});

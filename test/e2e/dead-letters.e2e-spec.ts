import { randomBytes } from 'node:crypto';
import { runCliOn } from '../support/cli';
import type { IngestionJobData } from '../../src/modules/ingestion/ingestion.types';
import { sendJson } from '../support/capture-client';
import { partitionQueues, waitForQueuesIdle, waitForRows } from '../support/ingestion';
import { startTestApp, TestApp } from '../support/test-app';

describe('Dead-letter queue', () => {
  let t: TestApp;
  const cli = (...argv: string[]) => runCliOn(t, ...argv);

  beforeAll(async () => {
    t = await startTestApp({ env: { ROLE: 'all' } });
  });
  afterAll(() => t.close());

  it('sends a poison job to the failed set after one try, keeps the queue moving, and replays it once fixed', async () => {
    // A job for a project that does not exist breaks a foreign key: not transient, so not retried.
    const poison: IngestionJobData = {
      segments: [
        {
          projectId: 9999,
          token: 'phc_ProjectThatWasNeverCreated000000000000000',
          receivedAt: new Date().toISOString(),
          events: [{ uuid: '01890f9e-9999-7000-8000-000000000001', event: 'poisoned', distinct_id: 'p', properties: {}, timestamp: new Date().toISOString(), elements_chain: '' }],
          warnings: [],
        },
      ],
    };
    const [queue] = partitionQueues(t);
    const job = await queue.add('events', poison);
    await sendJson(t, '/capture/', { api_key: t.keys.projectApiKey, event: 'healthy', distinct_id: 'h' });
    await waitForRows(t, `SELECT 1 FROM event WHERE event = 'healthy'`, [], 1);
    await waitForQueuesIdle(t);
    const failed = await queue.getJob(job.id!);
    expect(await failed!.isFailed()).toBe(true);
    expect(failed!.attemptsMade).toBe(1);

    const listed = await cli('dlq', 'list');
    expect(listed.code).toBe(0);
    expect(listed.lines[0]).toBe('1 dead-lettered job(s)');
    expect(listed.lines[1]).toMatch(new RegExp(`^ingestion-0:${job.id}\\t\\S+\\t1 events\\tingestion failed: .*foreign key`));

    expect((await cli('dlq', 'replay')).code).toBe(2);
    await t.sql(`INSERT INTO organization (id, name, slug) VALUES ('00000000-0000-4000-8000-000000009999', 'Late', 'late')`);
    await t.sql(`INSERT INTO project (id, uuid, organization_id, name, api_token) VALUES (9999, gen_random_uuid(), '00000000-0000-4000-8000-000000009999', 'Late', 'phc_ProjectThatWasNeverCreated000000000000000')`);
    const replayed = await cli('dlq', 'replay', `ingestion-0:${job.id}`);
    expect(replayed.lines).toEqual(['Replayed 1 job(s).']);
    await waitForRows(t, `SELECT 1 FROM event WHERE event = 'poisoned' AND project_id = 9999`, [], 1);
    await waitForQueuesIdle(t);
    expect((await cli('dlq', 'list')).lines[0]).toBe('0 dead-lettered job(s)');
    expect((await cli('dlq', 'replay', '--all')).lines).toEqual(['Replayed 0 job(s).']);
    expect(await t.sql(`SELECT count(*)::int AS n FROM event WHERE event = 'poisoned'`)).toEqual([{ n: 1 }]);
  });

  it('keeps the other events of a job when one of them cannot be stored, and dead-letters only that one', async () => {
    // Random text does not compress: an event name this long is more than a btree index entry can hold.
    const unstorable = randomBytes(6000).toString('base64');
    const res = await sendJson(t, '/batch/', {
      api_key: t.keys.projectApiKey,
      batch: [
        // One distinct id: one partition, so the three travel in one job.
        { event: 'kept-before', distinct_id: 'k' },
        { event: unstorable, distinct_id: 'k' },
        { event: 'kept-after', distinct_id: 'k' },
      ],
    });
    expect(res.status).toBe(200);
    await waitForRows(t, `SELECT 1 FROM event WHERE event IN ('kept-before', 'kept-after')`, [], 2);
    await waitForQueuesIdle(t);
    const listed = await cli('dlq', 'list');
    expect(listed.lines[0]).toBe('1 dead-lettered job(s)');
    expect(listed.lines[1]).toMatch(/\t1 events\tingestion failed for 1 of 3 events: .*index row size/);
    const [failed] = (await Promise.all(partitionQueues(t).map((queue) => queue.getFailed()))).flat();
    expect((failed.data as IngestionJobData).segments.flatMap((segment) => segment.events.map((event) => event.event))).toEqual([unstorable]);
    expect(await t.sql(`SELECT count(*)::int AS n FROM event WHERE event IN ('kept-before', 'kept-after')`)).toEqual([{ n: 2 }]);
  });
});

import { randomBytes, randomUUID } from 'node:crypto';
import { runCliOn } from '../support/cli';
import type { IngestionJobData } from '../../src/modules/ingestion/ingestion.types';
import { isPayloadReference, JobPayloads } from '../../src/queues/job-payloads';
import { sendJson } from '../support/capture-client';
import { partitionQueues, waitForQueuesIdle, waitForRows } from '../support/ingestion';
import { startTestApp, TestApp } from '../support/test-app';

describe('Dead-letter queue', () => {
  let t: TestApp;
  const cli = (...argv: string[]) => runCliOn(t, ...argv);

  beforeAll(async () => {
    t = await startTestApp({ env: { ROLE: 'all' } });
  });
  /** The payload keys of large jobs still in Redis, over every partition queue. */
  const payloadKeys = async () => {
    const keys = await Promise.all(
      partitionQueues(t).map(async (queue) => ((await JobPayloads.clientOf(queue)) as unknown as { keys(pattern: string): Promise<string[]> }).keys(`${queue.qualifiedName}:payload:*`)),
    );
    return keys.flat();
  };
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
    // The database refuses one event for good (as it would a value no index can hold): a trigger stands in for it.
    await t.sql(`CREATE FUNCTION refuse_poisoned_event() RETURNS trigger LANGUAGE plpgsql AS $$
                 BEGIN IF NEW.event = 'unstorable' THEN RAISE EXCEPTION 'this event cannot be stored'; END IF; RETURN NEW; END $$`);
    await t.sql(`CREATE TRIGGER refuse_poisoned_event BEFORE INSERT ON event FOR EACH ROW EXECUTE FUNCTION refuse_poisoned_event()`);
    try {
      const res = await sendJson(t, '/batch/', {
        api_key: t.keys.projectApiKey,
        batch: [
          // One distinct id: one partition, so the three travel in one job.
          { event: 'kept-before', distinct_id: 'k' },
          { event: 'unstorable', distinct_id: 'k' },
          { event: 'kept-after', distinct_id: 'k' },
        ],
      });
      expect(res.status).toBe(200);
      await waitForRows(t, `SELECT 1 FROM event WHERE event IN ('kept-before', 'kept-after')`, [], 2);
      await waitForQueuesIdle(t);
    } finally {
      await t.sql(`DROP TRIGGER refuse_poisoned_event ON event`);
      await t.sql(`DROP FUNCTION refuse_poisoned_event()`);
    }
    const listed = await cli('dlq', 'list');
    expect(listed.lines[0]).toBe('1 dead-lettered job(s)');
    expect(listed.lines[1]).toMatch(/\t1 events\tingestion failed for 1 of 3 events: .*this event cannot be stored/);
    const [failed] = (await Promise.all(partitionQueues(t).map((queue) => queue.getFailed()))).flat();
    expect((failed.data as IngestionJobData).segments.flatMap((segment) => segment.events.map((event) => event.event))).toEqual(['unstorable']);
    expect(await t.sql(`SELECT count(*)::int AS n FROM event WHERE event IN ('kept-before', 'kept-after')`)).toEqual([{ n: 2 }]);
  });

  it('stores events whose name, email, property keys or group type are longer than any index entry can hold', async () => {
    // Random text does not compress: each of these is over the 2,704 bytes of a btree entry.
    const long = (prefix: string) => prefix + randomBytes(6000).toString('base64');
    const [name, email, key, type] = [long('name-'), long('email-'), long('key-'), long('type-')];
    const deadBefore = (await cli('dlq', 'list')).lines[0];
    const res = await sendJson(t, '/batch/', {
      api_key: t.keys.projectApiKey,
      batch: [
        { event: name, distinct_id: 'long-1' },
        { event: 'long-email', distinct_id: 'long-2', properties: { $set: { email } } },
        { event: 'long-key', distinct_id: 'long-3', properties: { [key]: 1, short_key: 1, $set: { [key]: 1 } } },
        { event: '$groupidentify', distinct_id: 'long-4', properties: { $group_type: type, $group_key: 'k' } },
      ],
    });
    expect(res.status).toBe(200);
    await waitForRows(t, `SELECT 1 FROM event WHERE distinct_id LIKE 'long-%'`, [], 4);
    await waitForQueuesIdle(t);
    expect((await cli('dlq', 'list')).lines[0]).toBe(deadBefore);
    expect(await t.sql(`SELECT count(*)::int AS n FROM event WHERE event = $1`, [name])).toEqual([{ n: 1 }]);
    // Found through the bounded indexes, compared in full.
    const events = await t.http.get(`/api/projects/${t.keys.projectId}/events/?event=${encodeURIComponent(name)}`);
    expect(events.body.results.map((e: { distinct_id: string }) => e.distinct_id)).toEqual(['long-1']);
    const persons = await t.http.get(`/api/projects/${t.keys.projectId}/persons/?email=${encodeURIComponent(email)}`);
    expect(persons.body.results.map((p: { distinct_ids: string[] }) => p.distinct_ids)).toEqual([['long-2']]);
    const sameStart = await t.http.get(`/api/projects/${t.keys.projectId}/persons/?email=${encodeURIComponent(email.slice(0, 300))}`);
    expect(sameStart.body.results).toEqual([]);
    // No definition for names PostHog would not define either; the short key of the same event has one.
    expect(await t.sql(`SELECT name FROM property_definition WHERE name IN ('short_key', $1)`, [key])).toEqual([{ name: 'short_key' }]);
    expect(await t.sql(`SELECT count(*)::int AS n FROM event_definition WHERE name = $1`, [name])).toEqual([{ n: 0 }]);
    expect(await t.sql(`SELECT count(*)::int AS n FROM group_type_mapping`)).toEqual([{ n: 0 }]);
    const [warning] = await t.sql<{ type: string }>(`SELECT type FROM ingestion_warning WHERE details->>'group_type' = $1`, [type]);
    expect(warning).toEqual({ type: 'invalid_group_identify' });
  });
  it("keeps a large job's payload beside its dead letter, replays it, and removes the payload once its events are stored", async () => {
    const event = (name: string, blob: string) => ({ uuid: randomUUID(), event: name, distinct_id: 'payload', properties: { blob }, timestamp: new Date().toISOString(), elements_chain: '' });
    const job = (name: string, blob: string): IngestionJobData => ({
      segments: [{ projectId: t.keys.projectId, token: t.keys.projectApiKey, receivedAt: new Date().toISOString(), events: [event(name, blob)], warnings: [] }],
    });
    const [stored, refused] = ['s"é😀'.repeat(100_000), 'r'.repeat(600_000)];
    await t.sql(`CREATE FUNCTION refuse_large_event() RETURNS trigger LANGUAGE plpgsql AS $$
                 BEGIN IF NEW.event = 'large-refused' THEN RAISE EXCEPTION 'large event refused'; END IF; RETURN NEW; END $$`);
    await t.sql(`CREATE TRIGGER refuse_large_event BEFORE INSERT ON event FOR EACH ROW EXECUTE FUNCTION refuse_large_event()`);
    const [queue] = partitionQueues(t);
    const deadBefore = (await queue.getFailed()).length;
    let refusedJob;
    try {
      await JobPayloads.add(queue, 'events', Buffer.from(JSON.stringify(job('large-stored', stored))), 1);
      refusedJob = await JobPayloads.add(queue, 'events', Buffer.from(JSON.stringify(job('large-refused', refused))), 1);
      await waitForRows(t, `SELECT 1 FROM event WHERE event = 'large-stored'`, [], 1);
      await waitForQueuesIdle(t);
    } finally {
      await t.sql(`DROP TRIGGER refuse_large_event ON event`);
      await t.sql(`DROP FUNCTION refuse_large_event()`);
    }
    // The stored job's payload went with it; the dead letter still refers to its own, and counts its event.
    const [letter] = (await queue.getFailed()).filter((failed) => failed.id === refusedJob.id);
    expect(isPayloadReference(letter.data)).toBe(true);
    expect(await payloadKeys()).toEqual([letter.data.payloadKey]);
    expect((await queue.getFailed()).length).toBe(deadBefore + 1);
    expect((await cli('dlq', 'list')).lines).toContainEqual(expect.stringMatching(new RegExp(`^ingestion-0:${refusedJob.id}\\t\\S+\\t1 events\\tingestion failed: .*large event refused`)));

    expect((await cli('dlq', 'replay', `ingestion-0:${refusedJob.id}`)).lines).toEqual(['Replayed 1 job(s).']);
    await waitForRows(t, `SELECT 1 FROM event WHERE event = 'large-refused'`, [], 1);
    await waitForQueuesIdle(t);
    const blobs = await t.sql<{ event: string; same: boolean }>(
      `SELECT event, properties->>'blob' = CASE event WHEN 'large-stored' THEN $1 ELSE $2 END AS same FROM event WHERE event LIKE 'large-%' ORDER BY event`,
      [stored, refused],
    );
    expect(blobs).toEqual([{ event: 'large-refused', same: true }, { event: 'large-stored', same: true }]);
    // Removed once the worker hears the job completed, just after the queue is idle.
    for (let tries = 0; tries < 50 && (await payloadKeys()).length > 0; tries++) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await payloadKeys()).toEqual([]);
  });

  it('sends a job whose payload is gone to the dead letters at once, naming the key', async () => {
    const [queue] = partitionQueues(t);
    const payloadKey = `${queue.qualifiedName}:payload:never-written`;
    const orphan = await queue.add('events', { payloadKey, events: 2 });
    await waitForQueuesIdle(t);
    const failed = (await queue.getJob(orphan.id!))!;
    expect([await failed.isFailed(), failed.attemptsMade, failed.failedReason]).toEqual([true, 1, `the job's payload (${payloadKey}) is no longer in Redis`]);
    expect((await cli('dlq', 'list')).lines).toContainEqual(expect.stringMatching(new RegExp(`^ingestion-0:${orphan.id}\\t\\S+\\t2 events\\t`)));
  });
});

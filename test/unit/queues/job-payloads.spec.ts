import type { Queue } from 'bullmq';
import { isPayloadReference, JobPayloads, MissingPayloadError, type PayloadClient } from '../../../src/queues/job-payloads';

/** An in-memory stand-in for the Redis commands JobPayloads uses. */
function fakeRedis(): PayloadClient & { values: Map<string, Buffer> } {
  const values = new Map<string, Buffer>();
  return {
    values,
    set: async (key, value) => values.set(key, value),
    getBuffer: async (key) => values.get(key) ?? null,
    del: async (key) => Number(values.delete(key)),
  };
}

function fakeQueue(redis: PayloadClient, add: (name: string, data: unknown) => Promise<unknown>): Queue {
  return { qualifiedName: 'hb:ingestion-3', backend: { client: Promise.resolve(redis) }, add } as unknown as Queue;
}

describe(JobPayloads.name, () => {
  it('stores the JSON under a key of the queue and adds a job that carries only the key and the event count', async () => {
    const redis = fakeRedis();
    const added: unknown[] = [];
    const sut = fakeQueue(redis, async (_name, data) => added.push(data));
    await JobPayloads.add(sut, 'events', Buffer.from('{"segments":[]}'), 7);
    const [key] = [...redis.values.keys()];
    expect(key).toMatch(/^hb:ingestion-3:payload:[0-9a-f-]{36}$/);
    expect(added).toEqual([{ payloadKey: key, events: 7 }]);
    expect(await JobPayloads.read(redis, added[0] as { payloadKey: string; events: number })).toEqual({ segments: [] });
  });

  it('removes the payload again when the job cannot be added, and fails as the add did', async () => {
    const redis = fakeRedis();
    const sut = fakeQueue(redis, () => Promise.reject(new Error('queue unreachable')));
    await expect(JobPayloads.add(sut, 'events', Buffer.from('{}'), 1)).rejects.toThrow('queue unreachable');
    expect(redis.values.size).toBe(0);
  });

  it('says which key is missing when a payload is gone', async () => {
    await expect(JobPayloads.read(fakeRedis(), { payloadKey: 'hb:q:payload:x', events: 1 })).rejects.toEqual(new MissingPayloadError('hb:q:payload:x'));
  });

  it('tells references from job data', () => {
    expect([isPayloadReference({ payloadKey: 'k', events: 1 }), isPayloadReference({ segments: [] }), isPayloadReference(null), isPayloadReference('k')]).toEqual([true, false, false, false]);
  });
});

import { Logger } from '@nestjs/common';
import type { Queue } from 'bullmq';
import type { AppConfig } from '../../../src/config/app-config';
import { IngestionProducer } from '../../../src/modules/ingestion/ingestion-producer';
import type { NormalizedEvent } from '../../../src/modules/events/normalized-event';
import type { IngestionJobData, IngestionSegment } from '../../../src/modules/ingestion/ingestion.types';
import { segmentJobJson } from '../../../src/modules/ingestion/job-splitting';
import { PartitionQueues } from '../../../src/queues/partition-queues';

const MB = 1024 * 1024;
const config = { ingestion: { coalesceMs: 5, enqueueTimeoutMs: 1500 } } as AppConfig;

const segment = (...names: string[]): IngestionSegment => ({
  projectId: 1,
  token: 'phc_x',
  receivedAt: '2026-01-01T00:00:00.000Z',
  events: names.map((event) => ({ event, properties: { blob: event.startsWith('big') ? 'x'.repeat(MB) : '' } }) as unknown as NormalizedEvent),
  warnings: [],
});

interface Added {
  partition: number;
  events: string[];
  acknowledge: () => void;
}

/** Partition queues whose adds stay unacknowledged until the test says so. */
function fakeQueues(partitions: number): { queues: PartitionQueues; added: Added[] } {
  const added: Added[] = [];
  const queue = (partition: number) =>
    ({
      add: (_name: string, data: IngestionJobData) =>
        new Promise<void>((resolve) => added.push({ partition, events: data.segments.flatMap((s) => s.events.map((e) => e.event)), acknowledge: resolve })),
    }) as unknown as Queue;
  return { queues: new PartitionQueues(Array.from({ length: partitions }, (_, p) => queue(p))), added };
}

/** Whether a promise has settled, after the timers and turns that are due have run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setTimeout(resolve, 20));
  return done;
}

describe(IngestionProducer.name, () => {
  beforeAll(() => Logger.overrideLogger(false)); // the outage line of the 503 case
  it('puts small captures of the same few milliseconds and partition in one job', async () => {
    const { queues, added } = fakeQueues(1);
    const sut = new IngestionProducer(config, queues);
    const first = sut.enqueue(new Map([[0, segment('a')]]), 100);
    const second = sut.enqueue(new Map([[0, segment('b')]]), 100);
    await settled(first);
    expect(added.map((job) => job.events)).toEqual([['a', 'b']]);
    added[0].acknowledge();
    await expect(Promise.all([first, second])).resolves.toEqual([undefined, undefined]);
  });

  it('gives a large payload jobs of its own: a small capture beside it is answered without waiting for them', async () => {
    const { queues, added } = fakeQueues(1);
    const sut = new IngestionProducer(config, queues);
    const large = sut.enqueue(new Map([[0, segment('big-1', 'big-2')]]), 2 * MB + 100);
    const small = sut.enqueue(new Map([[0, segment('small')]]), 100);
    expect(await settled(small)).toBe(false);
    const smallJob = added.find((job) => job.events.includes('small'))!;
    expect(smallJob.events).toEqual(['small']);
    smallJob.acknowledge();
    expect(await settled(small)).toBe(true);
    expect(await settled(large)).toBe(false);
    // The large payload's two 1 MB events are two jobs, added in order, the second once the first is acknowledged.
    expect(added.filter((job) => job !== smallJob).map((job) => job.events)).toEqual([['big-1']]);
    added.find((job) => job.events[0] === 'big-1')!.acknowledge();
    await settled(large);
    added.find((job) => job.events[0] === 'big-2')!.acknowledge();
    expect(await settled(large)).toBe(true);
  });

  it('adds jobs serialised elsewhere apart from small captures, each partition’s in order, one at a time', async () => {
    const { queues, added } = fakeQueues(2);
    const sut = new IngestionProducer(config, queues);
    const job = (partition: number, name: string) => {
      const { events, ...frame } = segment(name);
      return { partition, events: 1, json: segmentJobJson(frame, Buffer.from(JSON.stringify(events))) };
    };
    const stored = sut.enqueueSerialized([job(0, 'ready-1'), job(1, 'ready-b'), job(0, 'ready-2')]);
    const small = sut.enqueue(new Map([[0, segment('small')]]), 100);
    await settled(small);
    added.find((added) => added.events.includes('small'))!.acknowledge();
    expect(await settled(small)).toBe(true);
    for (const name of ['ready-1', 'ready-b', 'ready-2']) {
      expect(await settled(stored)).toBe(false);
      added.find((added) => added.events[0] === name)!.acknowledge();
    }
    expect(await settled(stored)).toBe(true);
    // ready-2 waited for ready-1 (its partition's order); ready-b took its turn between them.
    expect(added.map((added) => `${added.partition}:${added.events}`)).toEqual(['0:ready-1', '0:small', '1:ready-b', '0:ready-2']);
  });

  it('adds the large jobs of every partition one at a time', async () => {
    const { queues, added } = fakeQueues(2);
    const sut = new IngestionProducer(config, queues);
    const large = sut.enqueue(
      new Map([
        [0, segment('big-a')],
        [1, segment('big-b')],
      ]),
      2 * MB + 100,
    );
    await settled(large);
    // Serialising a job happens when it is added: two at once would hold the event loop for both.
    expect(added.map((job) => job.events)).toEqual([['big-a']]);
    added[0].acknowledge();
    await settled(large);
    expect(added.map((job) => job.events)).toEqual([['big-a'], ['big-b']]);
    added[1].acknowledge();
    expect(await settled(large)).toBe(true);
  });

  it('does not add a large job whose caller was told 503 while it waited for its turn', async () => {
    const { queues, added } = fakeQueues(1);
    const sut = new IngestionProducer({ ingestion: { coalesceMs: 5, enqueueTimeoutMs: 100 } } as AppConfig, queues);
    const first = sut.enqueue(new Map([[0, segment('big-first')]]), 2 * MB);
    const second = sut.enqueue(new Map([[0, segment('big-second')]]), 2 * MB);
    const unavailable = { status: 503, detail: 'Unable to store event. Please try again.' };
    await expect(first).rejects.toMatchObject(unavailable);
    await expect(second).rejects.toMatchObject(unavailable);
    added[0].acknowledge(); // the queue answers at last: the second's turn comes, after its caller gave up
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(added.map((job) => job.events)).toEqual([['big-first']]);
  });
});

import { Logger } from '@nestjs/common';
import type { AppConfig } from '../../../src/config/app-config';
import type { ProjectPrincipal } from '../../../src/common/auth/principal';
import { CaptureService } from '../../../src/modules/ingestion/capture.service';
import type { IngestionMetrics } from '../../../src/modules/ingestion/ingestion-metrics';
import type { IngestionProducer, SerializedJob } from '../../../src/modules/ingestion/ingestion-producer';
import type { IngestionSegment } from '../../../src/modules/ingestion/ingestion.types';
import { partitionOf } from '../../../src/modules/ingestion/partitioning';
import { prepareLargeCapture } from '../../../src/modules/ingestion/payload/large-capture';

const PARTITIONS = 4;
const NOW = Date.parse('2026-11-28T10:00:00Z');
const CALLER: ProjectPrincipal = { kind: 'project', projectId: 7, token: 'phc_capture' };
const counter = () => ({ inc: () => undefined });
const metrics = { received: counter(), enqueued: counter(), dropped: counter() } as unknown as IngestionMetrics;

/** What reached the queues, as each partition's segments, whichever way they were handed over. */
function recordingProducer(): { producer: IngestionProducer; byPartition: Map<number, IngestionSegment[]>; sizes: number[] } {
  const byPartition = new Map<number, IngestionSegment[]>();
  const sizes: number[] = [];
  const record = (partition: number, segment: IngestionSegment) => byPartition.set(partition, [...(byPartition.get(partition) ?? []), segment]);
  const producer = {
    enqueue: async (segments: Map<number, IngestionSegment>, payloadBytes: number) => {
      sizes.push(payloadBytes);
      segments.forEach((segment, partition) => record(partition, JSON.parse(JSON.stringify(segment))));
    },
    enqueueSerialized: async (jobs: SerializedJob[]) => jobs.forEach((job) => record(job.partition, JSON.parse(job.json.toString()).segments[0])),
  } as unknown as IngestionProducer;
  return { producer, byPartition, sizes };
}

/** Each partition's events and warnings, however they were cut into jobs. */
function merged(byPartition: Map<number, IngestionSegment[]>) {
  return new Map([...byPartition].map(([partition, segments]) => [partition, { frames: [...new Set(segments.map(({ events: _e, warnings: _w, ...frame }) => JSON.stringify(frame)))], events: segments.flatMap((s) => s.events), warnings: segments.flatMap((s) => s.warnings) }]));
}

const PAYLOAD = {
  api_key: CALLER.token,
  batch: [
    ...Array.from({ length: 9 }, (_, i) => ({ event: 'page', distinct_id: `d${i % 2}`, uuid: `0192f6a0-0000-7000-8000-0000000000${i}0`, timestamp: '2026-11-28T09:00:00Z', properties: { blob: 'z'.repeat(300_000), i } })),
    { event: '$performance_event', distinct_id: 'x' },
    { distinct_id: 'nameless' },
    { event: 'skewed', distinct_id: 'd1', uuid: 'not-a-uuid' },
  ],
};
const REQUEST = { path: '/batch/', query: {}, ip: '10.1.2.3', nowMs: NOW, partitions: PARTITIONS };

describe(CaptureService.name, () => {
  beforeAll(() => Logger.overrideLogger(false));
  const config = { ingestion: { partitions: PARTITIONS } } as AppConfig;

  it('enqueues a payload prepared by the payload worker exactly as it enqueues the same payload on the event loop', async () => {
    const text = JSON.stringify(PAYLOAD);
    const inline = recordingProducer();
    await new CaptureService(config, inline.producer, metrics).accept(CALLER, PAYLOAD, { ...REQUEST, decodedLength: text.length, needsCleaning: false });
    const worker = recordingProducer();
    const prepared = prepareLargeCapture({ value: JSON.parse(text), decodedLength: text.length, needsCleaning: false }, REQUEST).capture!;
    await new CaptureService(config, worker.producer, metrics).acceptPrepared(CALLER, prepared, REQUEST.path);
    expect(merged(worker.byPartition)).toEqual(merged(inline.byPartition));
    expect(Math.max(...[...worker.byPartition.values()].map((segments) => segments.length))).toBeGreaterThan(1); // cut into jobs of about 1 MB
  });

  it('puts a prepared payload’s events on the partitions of the caller’s own key when it was authenticated by another (a personal key)', async () => {
    const { api_key: _key, ...keyless } = PAYLOAD;
    const text = JSON.stringify(keyless);
    const prepared = prepareLargeCapture({ value: JSON.parse(text), decodedLength: text.length, needsCleaning: false }, REQUEST).capture!;
    const { producer, byPartition, sizes } = recordingProducer();
    await new CaptureService(config, producer, metrics).acceptPrepared(CALLER, prepared, REQUEST.path);
    // Told how large they are, so the producer cuts them into jobs of about 1 MB as for any large payload.
    expect(sizes).toEqual([expect.any(Number)]);
    expect(sizes[0]).toBeGreaterThan(2 * 1024 * 1024); // nine events of 300 KB
    for (const [partition, segments] of byPartition) {
      for (const event of segments.flatMap((segment) => segment.events)) expect(partitionOf(CALLER.token, event.distinct_id, PARTITIONS)).toBe(partition);
    }
    expect([...byPartition.values()].flat().flatMap((segment) => segment.events)).toHaveLength(10);
  });

  it('throws capture’s own refusal of a prepared payload once the caller is known', async () => {
    const prepared = prepareLargeCapture({ value: { api_key: CALLER.token, batch: 7 }, decodedLength: 30, needsCleaning: false }, REQUEST).capture!;
    const { producer } = recordingProducer();
    await expect(new CaptureService(config, producer, metrics).acceptPrepared(CALLER, prepared, REQUEST.path)).rejects.toMatchObject({ status: 400, code: 'invalid_payload' });
  });
});

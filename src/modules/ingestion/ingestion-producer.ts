import { Inject, Injectable, Logger } from '@nestjs/common';
import { TurnTaking } from '../../common/async/turn-taking';
import { withDeadline } from '../../common/async/with-deadline';
import { ApiError } from '../../common/errors/api-error';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { JobPayloads } from '../../queues/job-payloads';
import { PartitionQueues } from '../../queues/partition-queues';
import { INGESTION_JOB } from '../../queues/queue-names';
import type { IngestionJobData, IngestionSegment } from './ingestion.types';
import { chunkJobBySize, eventCount, MAX_JOB_BYTES } from './job-splitting';
import { OutageTracker } from './outage-tracker';

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
  outstanding: number;
  settled: boolean;
}

interface PendingPartition {
  segments: IngestionSegment[];
  waiters: Waiter[];
  /** The decoded sizes of the payloads its segments came from: about how large the job's JSON will be. */
  payloadBytes: number;
}

/** A job already serialised (a large payload's, by the payload worker): its partition, JSON and number of events. */
export interface SerializedJob {
  partition: number;
  json: Buffer;
  events: number;
}

/** Flush at once past this many pending events, whatever the coalescing window says. */
const FLUSH_AT_EVENTS = 2000;

export const queueUnavailable = () => ApiError.unavailable('Unable to store event. Please try again.');

/**
 * Puts segments on the partition queues. Captures arriving within a few milliseconds share one job per
 * partition (a job carries a batch of events, never one), and each caller is answered only once every
 * job holding its events was acknowledged by the queue — or told 503 when that fails or takes too long.
 */
@Injectable()
export class IngestionProducer {
  private readonly logger = new Logger(IngestionProducer.name);
  private pending = new Map<number, PendingPartition>();
  private flushTimer: NodeJS.Timeout | null = null;
  private pendingEvents = 0;
  private readonly outage = new OutageTracker();
  /** Jobs of about MAX_JOB_BYTES, from every partition, are added one at a time, with requests served in between. */
  private readonly largeJobs = new TurnTaking();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly queues: PartitionQueues,
  ) {}

  /**
   * Resolves once every segment is durably enqueued; rejects with a 503 ApiError otherwise. `payloadBytes`, the
   * decoded size of the request the segments came from, says about how large they are, so the ordinary small job is
   * never walked to be measured for splitting.
   */
  enqueue(segmentsByPartition: Map<number, IngestionSegment>, payloadBytes: number): Promise<void> {
    if (segmentsByPartition.size === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, outstanding: segmentsByPartition.size, settled: false };
      if (payloadBytes > MAX_JOB_BYTES) {
        // A large payload gets jobs of its own: coalesced with it, small captures would wait for all its pieces.
        for (const [partition, segment] of segmentsByPartition) void this.addJob(partition, { segments: [segment], waiters: [waiter], payloadBytes });
        return;
      }
      for (const [partition, segment] of segmentsByPartition) {
        const slot = this.pending.get(partition) ?? { segments: [], waiters: [], payloadBytes: 0 };
        slot.segments.push(segment);
        slot.waiters.push(waiter);
        slot.payloadBytes += payloadBytes;
        this.pending.set(partition, slot);
        this.pendingEvents += segment.events.length;
      }
      this.scheduleFlush();
    });
  }

  /**
   * Resolves once every job is on its queue, each partition's in the order given; rejects with a 503 ApiError
   * otherwise. They are large jobs: added one at a time, with requests served in between.
   */
  enqueueSerialized(jobs: readonly SerializedJob[]): Promise<void> {
    const byPartition = new Map<number, SerializedJob[]>();
    for (const job of jobs) {
      const list = byPartition.get(job.partition);
      if (list) list.push(job);
      else byPartition.set(job.partition, [job]);
    }
    if (byPartition.size === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, outstanding: byPartition.size, settled: false };
      for (const [partition, list] of byPartition) {
        void this.addInOrder(partition, list.map((job) => () => this.addSerialized(partition, job.json, job.events)), [waiter], true);
      }
    });
  }

  private scheduleFlush(): void {
    if (this.pendingEvents >= FLUSH_AT_EVENTS) {
      if (this.flushTimer) clearTimeout(this.flushTimer);
      this.flushTimer = null;
      this.flush();
      return;
    }
    if (this.flushTimer) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = null;
      this.flush();
    }, this.config.ingestion.coalesceMs);
  }

  private flush(): void {
    const batch = this.pending;
    this.pending = new Map();
    this.pendingEvents = 0;
    for (const [partition, slot] of batch) void this.addJob(partition, slot);
  }

  private addJob(partition: number, slot: PendingPartition): Promise<void> {
    const data: IngestionJobData = { segments: slot.segments };
    if (slot.payloadBytes <= MAX_JOB_BYTES) return this.addInOrder(partition, [() => this.queues.get(partition).add(INGESTION_JOB, data)], slot.waiters, false);
    const pieces = chunkJobBySize(data, MAX_JOB_BYTES);
    return this.addInOrder(partition, pieces.map((piece) => () => this.addSerialized(partition, Buffer.from(JSON.stringify(piece)), eventCount(piece))), slot.waiters, true);
  }

  /** Adds the jobs in order, each once the one before is on the queue (the partition keeps capture order), then answers the waiters. */
  private async addInOrder(partition: number, adds: ReadonlyArray<() => Promise<unknown>>, waiters: Waiter[], large: boolean): Promise<void> {
    try {
      const timeoutMs = this.config.ingestion.enqueueTimeoutMs;
      for (const add of adds) {
        await (large ? this.addLargeInTurn(add, timeoutMs) : withDeadline(add(), timeoutMs, 'enqueue'));
      }
      const ended = this.outage.succeeded(Date.now());
      if (ended) {
        this.logger.log({ refusedJobs: ended.failures, outageMs: ended.durationMs }, 'queue reachable again: capture accepts events');
      }
      for (const waiter of waiters) {
        waiter.outstanding -= 1;
        if (waiter.outstanding === 0 && !waiter.settled) {
          waiter.settled = true;
          waiter.resolve();
        }
      }
    } catch (error) {
      // One line when the queue becomes unreachable; the count of refusals comes with the line that it is back.
      if (this.outage.failed(Date.now())) this.logger.warn({ err: error, partition }, 'enqueue failed: capture answers 503 until the queue is reachable');
      for (const waiter of waiters) {
        if (waiter.settled) continue;
        waiter.settled = true;
        waiter.reject(queueUnavailable());
      }
    }
  }

  /**
   * Adds a large job when its turn comes, unless its caller was told 503 while it waited: a job added then would be
   * one the client retries. "Told 503" is the deadline's own rejection, not a second reading of the clock, which a
   * timer can fire a millisecond ahead of.
   */
  private addLargeInTurn(add: () => Promise<unknown>, timeoutMs: number): Promise<unknown> {
    let abandoned = false;
    const turn = this.largeJobs.run(() => (abandoned ? Promise.reject(new Error('enqueue abandoned before its turn')) : add()));
    return withDeadline(turn, timeoutMs, 'enqueue').catch((error: unknown) => {
      abandoned = true;
      throw error;
    });
  }

  /** A serialised job: on Redis its data is kept beside the job (JobPayloads); other backends store the object. */
  private addSerialized(partition: number, json: Buffer, events: number): Promise<unknown> {
    const queue = this.queues.get(partition);
    return this.queues.onRedis ? JobPayloads.add(queue, INGESTION_JOB, json, events) : queue.add(INGESTION_JOB, JSON.parse(json.toString('utf8')));
  }
}

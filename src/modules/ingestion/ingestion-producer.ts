import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { TurnTaking } from '../../common/async/turn-taking';
import { withDeadline } from '../../common/async/with-deadline';
import { ApiError } from '../../common/errors/api-error';
import { heldBytesIn, restoreHeldStrings, type HeldStrings } from '../../common/json/held-strings';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { JobEncodingThread } from '../../queues/job-encoding-thread';
import { JobPayloads } from '../../queues/job-payloads';
import { PartitionQueues } from '../../queues/partition-queues';
import { INGESTION_JOB } from '../../queues/queue-names';
import type { IngestionJobData, IngestionSegment } from './ingestion.types';
import { chunkJobBySize, eventCount } from './job-splitting';
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
  /** The long strings its events refer to by marker: only ever a large payload's jobs of its own. */
  held?: HeldStrings;
}

/** A job bigger than this is enqueued as several, so no single serialisation holds the event loop for long. */
const MAX_JOB_BYTES = 1024 * 1024;

/**
 * Whether jobs are written the large way: cut into pieces of about MAX_JOB_BYTES, one at a time across partitions,
 * serialised off the event loop. Always so for held strings: only that path puts them back.
 */
function isLarge(payloadBytes: number, held: HeldStrings | undefined): boolean {
  return payloadBytes > MAX_JOB_BYTES || held !== undefined;
}

/** Flush at once past this many pending events, whatever the coalescing window says. */
const FLUSH_AT_EVENTS = 2000;

/** The task, unless its caller has been told 503 while it waited for its turn: a job added then would be a job the client retries. */
function unlessLate<T>(task: () => Promise<T>, deadline: number): () => Promise<T> {
  return () => (Date.now() < deadline ? task() : Promise.reject(new Error('enqueue timed out waiting for its turn')));
}

export const queueUnavailable = () => ApiError.unavailable('Unable to store event. Please try again.');

/**
 * Puts segments on the partition queues. Captures arriving within a few milliseconds share one job per
 * partition (a job carries a batch of events, never one), and each caller is answered only once every
 * job holding its events was acknowledged by the queue — or told 503 when that fails or takes too long.
 */
@Injectable()
export class IngestionProducer implements OnApplicationShutdown {
  private readonly logger = new Logger(IngestionProducer.name);
  private pending = new Map<number, PendingPartition>();
  private flushTimer: NodeJS.Timeout | null = null;
  private pendingEvents = 0;
  private readonly outage = new OutageTracker();
  /** Jobs of about MAX_JOB_BYTES, from every partition, are added one at a time, with requests served in between. */
  private readonly largeJobs = new TurnTaking();
  /** Serialises the large jobs off the event loop, where their data is kept beside the job (Redis) and the build has the thread. */
  private readonly encoding: JobEncodingThread | null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly queues: PartitionQueues,
  ) {
    this.encoding = queues.onRedis ? JobEncodingThread.create() : null;
  }

  /**
   * Resolves once every segment is durably enqueued; rejects with a 503 ApiError otherwise. `payloadBytes`, the
   * decoded size of the request the segments came from, says about how large they are, so the ordinary small job is
   * never walked to be measured for splitting.
   */
  enqueue(segmentsByPartition: Map<number, IngestionSegment>, payloadBytes: number, held?: HeldStrings): Promise<void> {
    if (segmentsByPartition.size === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, outstanding: segmentsByPartition.size, settled: false };
      if (isLarge(payloadBytes, held)) {
        // A large payload gets jobs of its own: coalesced with it, small captures would wait for all its pieces.
        for (const [partition, segment] of segmentsByPartition) void this.addJob(partition, { segments: [segment], waiters: [waiter], payloadBytes, held });
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

  private async addJob(partition: number, slot: PendingPartition): Promise<void> {
    const data: IngestionJobData = { segments: slot.segments };
    try {
      // In order, each added once the one before is on the queue: the partition keeps capture order.
      const { held } = slot;
      const large = isLarge(slot.payloadBytes, held);
      const jobs = large ? chunkJobBySize(data, MAX_JOB_BYTES, held && ((piece) => heldBytesIn(piece, held))) : [data];
      const timeoutMs = this.config.ingestion.enqueueTimeoutMs;
      for (const job of jobs) {
        const add = () => this.add(partition, job, large, held);
        await withDeadline(large ? this.largeJobs.run(unlessLate(add, Date.now() + timeoutMs)) : add(), timeoutMs, 'enqueue');
      }
      const ended = this.outage.succeeded(Date.now());
      if (ended) {
        this.logger.log({ refusedJobs: ended.failures, outageMs: ended.durationMs }, 'queue reachable again: capture accepts events');
      }
      for (const waiter of slot.waiters) {
        waiter.outstanding -= 1;
        if (waiter.outstanding === 0 && !waiter.settled) {
          waiter.settled = true;
          waiter.resolve();
        }
      }
    } catch (error) {
      // One line when the queue becomes unreachable; the count of refusals comes with the line that it is back.
      if (this.outage.failed(Date.now())) this.logger.warn({ err: error, partition }, 'enqueue failed: capture answers 503 until the queue is reachable');
      for (const waiter of slot.waiters) {
        if (waiter.settled) continue;
        waiter.settled = true;
        waiter.reject(queueUnavailable());
      }
    }
  }

  /**
   * A large job is serialised on the job-encoding thread when there is one, its held strings spliced in there, and
   * its bytes are stored beside the job (JobPayloads). Without the thread, the held strings are put back into the job
   * first and the job carries them.
   */
  private add(partition: number, job: IngestionJobData, large: boolean, held?: HeldStrings): Promise<unknown> {
    const queue = this.queues.get(partition);
    if (!large) return queue.add(INGESTION_JOB, job); // every capture: no extra promise
    if (!this.encoding) {
      if (held) restoreHeldStrings(job, held);
      return queue.add(INGESTION_JOB, job);
    }
    return this.encoding.encode(job, held).then((json) => JobPayloads.add(queue, INGESTION_JOB, json, eventCount(job)));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.encoding?.close();
  }
}

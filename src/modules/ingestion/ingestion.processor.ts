import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger, OnApplicationShutdown, Type } from '@nestjs/common';
import { Job, UnrecoverableError } from 'bullmq';
import { isPayloadReference, JobPayloads, type PayloadReference } from '../../queues/job-payloads';
import { errorLogger } from '../../queues/queue-error-listeners';
import { IngestionWorkerService } from './ingestion-worker.service';
import type { IngestionJobData } from './ingestion.types';
import { eventCount, joinJobs, splitJobByEvent } from './job-splitting';
import { isTransientError, retryDelayMs } from './transient-errors';

/**
 * A crashed worker's job is taken over once its lock lapses (`lockDuration`, renewed every half of it while the job
 * runs) and a stalled-job check (every `stalledInterval`) finds it: within 7 s. Partitions run one job at a time, so
 * that is how long a partition stands still after a worker dies. The price of a shorter lock: a live worker whose
 * event loop stood still for 5 s would lose its job to another worker; the database would still store each event
 * once (uuid claims), but the partition would run that job twice at once.
 */
export const WORKER_OPTIONS = { concurrency: 1, lockDuration: 5_000, stalledInterval: 2_000, maxStalledCount: 3 };

/**
 * The processor of one partition queue (one class per queue: @Processor binds a class to a queue).
 * Transient failures are retried here, inside the job, so the partition keeps its order; anything
 * else is poison: the job's events are then stored one by one, and those that still fail go to the
 * failed set (the dead-letter queue) with the reason, as one job.
 */
export function ingestionProcessorFor(queueName: string, workerConnection: unknown): Type<WorkerHost> {
  // The queue was registered with the producers' fail-fast connection; a worker must block and
  // reconnect instead, or a Redis outage turns its fetch loop into a busy loop.
  @Processor(queueName, { ...WORKER_OPTIONS, connection: workerConnection as never })
  class IngestionPartitionProcessor extends WorkerHost implements OnApplicationShutdown {
    private readonly logger = new Logger(`IngestionProcessor:${queueName}`);
    private stopping = false;
    private readonly logError = errorLogger(this.logger, queueName);

    constructor(private readonly ingestion: IngestionWorkerService) {
      super();
    }

    async process(job: Job<IngestionJobData | PayloadReference>): Promise<void> {
      const data = await this.dataOf(job);
      const failure = await this.store(job, data);
      if (failure === null) return;
      const pieces = splitJobByEvent(data);
      if (pieces.length <= 1) throw new UnrecoverableError(`ingestion failed: ${describe(failure)}`);
      // A job holds the events of every request of the same few milliseconds and partition, other
      // clients' included, all acknowledged. One event the database refuses must not cost the others:
      // each is stored on its own, and the dead-letter entry keeps only those that still fail.
      const failed: Array<{ piece: IngestionJobData; error: unknown }> = [];
      for (const piece of pieces) {
        const error = await this.store(job, piece);
        if (error !== null) failed.push({ piece, error });
      }
      if (failed.length === 0) return;
      const [reference, rest] = [job.data, joinJobs(failed.map((f) => f.piece))];
      await job.updateData(rest);
      if (isPayloadReference(reference)) await this.removePayload(reference); // the dead letter now holds its events itself
      throw new UnrecoverableError(`ingestion failed for ${eventCount(rest)} of ${eventCount(data)} events: ${describe(failed[0].error)}`);
    }

    /** The job's events: its data, or the payload it refers to (a large job's, kept beside it). */
    private async dataOf(job: Job<IngestionJobData | PayloadReference>): Promise<IngestionJobData> {
      if (!isPayloadReference(job.data)) return job.data;
      // A payload that is gone fails the job at once; a Redis error is retried as any job failure is.
      return (await JobPayloads.read(await JobPayloads.clientOf(this.worker), job.data)) as IngestionJobData;
    }

    /** A completed job is removed at once (removeOnComplete); the payload it referred to goes with it. */
    @OnWorkerEvent('completed')
    async onCompleted(job: Job): Promise<void> {
      if (isPayloadReference(job.data)) await this.removePayload(job.data);
    }

    private async removePayload(reference: PayloadReference): Promise<void> {
      try {
        await JobPayloads.remove(await JobPayloads.clientOf(this.worker), reference);
      } catch (error) {
        // Nothing reads it again (its events are stored, or now in the job itself): what stays is memory in Redis.
        this.logger.warn({ err: error, payloadKey: reference.payloadKey }, 'could not remove a job\'s payload');
      }
    }

    /** Stores `data` in one transaction, retrying transient failures; the error when it cannot be stored, else null. */
    private async store(job: Job, data: IngestionJobData): Promise<unknown> {
      for (let attempt = 0; ; attempt++) {
        try {
          await this.ingestion.processJob(data);
          return null;
        } catch (error) {
          if (!isTransientError(error)) return error;
          // On shutdown the job goes back to the queue (its events are claimed by uuid, so nothing doubles).
          if (this.stopping) throw error;
          if (attempt % 10 === 0) this.logger.warn({ err: error, jobId: job.id, attempt }, 'transient failure, retrying');
          await new Promise((resolve) => setTimeout(resolve, retryDelayMs(attempt)));
        }
      }
    }

    /** Without a listener an 'error' event (Redis gone) would crash the worker. */
    @OnWorkerEvent('error')
    onError(error: Error): void {
      this.logError(error);
    }

    onApplicationShutdown(): void {
      this.stopping = true;
    }
  }
  Object.defineProperty(IngestionPartitionProcessor, 'name', { value: `IngestionProcessor_${queueName.replace(/\W/g, '_')}` });
  return IngestionPartitionProcessor;
}

function describe(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

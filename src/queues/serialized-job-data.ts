import { Job, type Queue } from 'bullmq';

/**
 * Job data already serialised to JSON (UTF-8 bytes) elsewhere, for a queue that `acceptSerializedJobData` prepared:
 * BullMQ writes these bytes as the job's data, exactly where it would have written its own `JSON.stringify`, so the
 * worker reads and parses the job as any other. What it spares the event loop is serialising a 1 MB job, and the
 * Redis client measuring and encoding that string: 10–15 ms of a busy loop per large job.
 */
export class SerializedJobData {
  constructor(readonly json: Buffer) {}

  /** BullMQ still stringifies `data` once: this keeps that to four bytes (the bytes go in its place). */
  toJSON(): null {
    return null;
  }
}

/** BullMQ's job, taking SerializedJobData as its serialised data as is. */
class SerializedDataJob extends Job {
  override asJSON(): ReturnType<Job['asJSON']> {
    const json = super.asJSON();
    // ioredis sends a Buffer argument as its bytes; BullMQ's type says string, which is what Redis then holds.
    return this.data instanceof SerializedJobData ? { ...json, data: this.data.json as unknown as string } : json;
  }
}

/**
 * Lets `queue.add` take SerializedJobData. Only for the Redis backend: the PostgreSQL one would store a Buffer as
 * bytea text. BullMQ creates jobs through the queue's `Job` class, which this queue then overrides with its own.
 */
export function acceptSerializedJobData(queue: Queue): void {
  Object.defineProperty(queue, 'Job', { value: SerializedDataJob });
}

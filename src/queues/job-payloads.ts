import { randomUUID } from 'node:crypto';
import { UnrecoverableError, type Job, type Queue } from 'bullmq';

/**
 * The data of a job whose events are stored under a Redis key of their own (a large payload's job): the key, and how
 * many events it holds (for the dead-letter list, which does not read the payload).
 */
export interface PayloadReference {
  payloadKey: string;
  events: number;
}

/** What JobPayloads needs of a connection: the ioredis commands behind BullMQ's own client (it passes them through). */
export interface PayloadClient {
  set(key: string, value: Buffer): Promise<unknown>;
  getBuffer(key: string): Promise<Buffer | null>;
  del(key: string): Promise<number>;
}

export function isPayloadReference(data: unknown): data is PayloadReference {
  return typeof data === 'object' && data !== null && typeof (data as PayloadReference).payloadKey === 'string';
}

/**
 * Large jobs' data (Redis backend only), kept beside the job instead of in it. Redis runs BullMQ's Lua scripts, and a
 * script that takes or returns a 1 MB value holds Redis for about 1.3 ms, where a plain SET or GET of it takes
 * microseconds: a 1 MB job passes through Lua when it is added and again when a worker takes it, and every capture
 * enqueue waits behind each pass. So the JSON goes in with SET, the job carries only its key, and the worker reads it
 * with GET.
 *
 * The key lives as long as the job needs it: written before the job is added (removed again if the add fails), read
 * by every attempt, kept with a dead letter through its replay, and removed once the job has completed or its data
 * has been replaced. Keys sit under the queue's own prefix, so they go wherever the queue's keys go.
 */
export class JobPayloads {
  /** Stores `json` (the job's data as UTF-8 JSON) under a key of its own, then adds a job that refers to it. */
  static async add(queue: Queue, name: string, json: Buffer, events: number): Promise<Job> {
    const client = await JobPayloads.clientOf(queue);
    const payloadKey = `${queue.qualifiedName}:payload:${randomUUID()}`;
    await client.set(payloadKey, json);
    try {
      return await queue.add(name, { payloadKey, events } satisfies PayloadReference);
    } catch (error) {
      // Not queued, so nobody will read it; where Redis is gone this fails too, and the key stays (nothing refers to it).
      await client.del(payloadKey).catch(() => undefined);
      throw error;
    }
  }

  /** The job data a reference stands for; MissingPayloadError where the key is gone. */
  static async read(client: PayloadClient, reference: PayloadReference): Promise<unknown> {
    const json = await client.getBuffer(reference.payloadKey);
    if (json === null) throw new MissingPayloadError(reference.payloadKey);
    return JSON.parse(json.toString('utf8'));
  }

  static async remove(client: PayloadClient, reference: PayloadReference): Promise<void> {
    await client.del(reference.payloadKey);
  }

  /** The Redis connection behind a queue or worker (`backend.client`, BullMQ's Redis-specific accessor). */
  static clientOf(owner: { backend: unknown }): Promise<PayloadClient> {
    return (owner.backend as { client: Promise<PayloadClient> }).client;
  }
}

/** Unrecoverable: BullMQ fails the job at once (a dead letter naming the key), since no retry can bring a payload back. */
export class MissingPayloadError extends UnrecoverableError {
  constructor(key: string) {
    super(`the job's payload (${key}) is no longer in Redis`);
    this.name = 'MissingPayloadError';
  }
}

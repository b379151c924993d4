import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { SerializedJobData } from './serialized-job-data';

type Reply = { id: number; json?: Uint8Array; message?: string };

/**
 * Serialises large jobs on a worker thread of its own. A 1 MB job's `JSON.stringify`, and the Redis client's work on
 * the string it makes, hold a busy event loop for 10–15 ms; the job copied to the thread (a structured clone copies
 * strings as they are) and its JSON handed back as bytes cost the loop well under a millisecond. One job at a time,
 * in order. The thread starts with the first job and never keeps the process alive.
 */
export class JobEncodingThread {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, { resolve: (data: SerializedJobData) => void; reject: (error: unknown) => void }>();
  private nextId = 0;

  private constructor(private readonly script: string) {}

  /** The thread, or null where its compiled script is absent (sources run without a build). */
  static create(script = join(__dirname, 'job-encoding.worker.js')): JobEncodingThread | null {
    return existsSync(script) ? new JobEncodingThread(script) : null;
  }

  encode(data: unknown): Promise<SerializedJobData> {
    const worker = this.worker ?? this.start();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, data });
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    await worker?.terminate();
  }

  private start(): Worker {
    const worker = new Worker(this.script);
    worker.unref();
    worker.on('message', ({ id, json, message }: Reply) => {
      const waiter = this.pending.get(id);
      this.pending.delete(id);
      if (json) waiter?.resolve(new SerializedJobData(Buffer.from(json.buffer, json.byteOffset, json.byteLength)));
      else waiter?.reject(new Error(`job encoding failed: ${message}`));
    });
    // Without a listener an error in the thread would be thrown here; its 'exit' fails what it held.
    worker.on('error', () => undefined);
    worker.on('exit', () => {
      if (this.worker === worker) this.worker = null;
      for (const { reject } of this.pending.values()) reject(new Error('job encoding thread exited'));
      this.pending.clear();
    });
    this.worker = worker;
    return worker;
  }
}

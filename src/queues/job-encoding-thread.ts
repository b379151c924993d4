import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ThreadRequests } from '../common/async/thread-requests';
import { heldStringsIn, type HeldStrings } from '../common/json/held-strings';

type Reply = { id: number; json?: Uint8Array; message?: string };

/**
 * Serialises large jobs on a worker thread of its own. A 1 MB job's `JSON.stringify`, and the Redis client's work on
 * the string it makes, hold a busy event loop for 10–15 ms; the job copied to the thread (a structured clone copies
 * strings as they are) and its JSON handed back as bytes cost the loop well under a millisecond. One job at a time,
 * in order.
 */
export class JobEncodingThread {
  private readonly thread: ThreadRequests<Reply>;

  private constructor(script: string) {
    this.thread = new ThreadRequests<Reply>(script, () => new Error('job encoding thread exited'));
  }

  /** The thread, or null where its compiled script is absent (sources run without a build). */
  static create(script = join(__dirname, 'job-encoding.worker.js')): JobEncodingThread | null {
    return existsSync(script) ? new JobEncodingThread(script) : null;
  }

  /** The job's JSON as bytes; with `held`, the strings its markers stand for are handed to the thread and spliced in there. */
  async encode(data: unknown, held?: HeldStrings): Promise<Buffer> {
    const strings = held && { nonce: held.nonce, json: heldStringsIn(data, held) };
    const transfer = strings ? [...strings.json.values()].map((bytes) => bytes.buffer) : [];
    const { json, message } = await this.thread.send({ data, held: strings }, transfer);
    if (!json) throw new Error(`job encoding failed: ${message}`);
    return Buffer.from(json.buffer, json.byteOffset, json.byteLength);
  }

  close(): Promise<void> {
    return this.thread.close();
  }
}

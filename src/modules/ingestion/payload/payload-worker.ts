import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ThreadRequests } from '../../../common/async/thread-requests';
import { ApiError } from '../../../common/errors/api-error';
import type { DecodeOptions, LocatedPayload } from './payload-decoding';
import { errorOf, type CaptureRequestContext, type WorkerDecoded, type WorkerReply } from './worker-protocol';

/** The thread's heap: room to parse a payload at the cap (a few times its size, 1 GB at least), not the process's. */
function threadHeapMb(maxDecompressedBytes: number): number {
  return Math.max(1024, Math.ceil((4 * maxDecompressedBytes) / (1024 * 1024)));
}

export interface PayloadWorkerLimits {
  /** Bytes of payloads, as received, that may wait for the worker (MAX_WAITING_PAYLOAD_BYTES). */
  maxWaitingBytes: number;
  /** The decompressed cap (MAX_DECOMPRESSED_BYTES): sizes the thread's heap. */
  maxDecompressedBytes: number;
}

const tooManyWaiting = () => ApiError.unavailable('Too many large payloads are waiting to be decoded. Please try again.');

/**
 * Decodes large payloads on one worker thread, one at a time (payload.worker.ts), and for capture also extracts,
 * normalises, partitions and serialises their events, so the event loop gets jobs ready to enqueue. `JSON.parse` of a
 * 5 MB batch holds an event loop for 10–20 ms, serialising its jobs as long again, and a gzip bomb costs up to its
 * cap in zlib work; on the thread, requests keep the event loop, and only one payload is ever inflated at once, so
 * concurrent bombs cost one bomb's memory, not one each. Payloads wait in the thread's queue, up to `maxWaitingBytes`
 * as received (past it: 503, which SDKs retry).
 */
export class PayloadWorker {
  private readonly thread: ThreadRequests<WorkerReply>;
  private waiting = 0;

  private constructor(
    script: string,
    private readonly limits: PayloadWorkerLimits,
  ) {
    // A heap of its own, bounded: a payload that decompresses past what it can hold (lz64 cannot be stopped midway)
    // ends the thread and answers 503 (retried by SDKs), instead of taking the process's heap.
    const lost = () => ApiError.unavailable('The payload could not be decoded. Please try again.');
    this.thread = new ThreadRequests<WorkerReply>(script, lost, { maxOldGenerationSizeMb: threadHeapMb(limits.maxDecompressedBytes) });
  }

  /** The worker, or null where the compiled thread script is absent (sources run without a build). */
  static create(limits: PayloadWorkerLimits, script = join(__dirname, 'payload.worker.js')): PayloadWorker | null {
    return existsSync(script) ? new PayloadWorker(script, limits) : null;
  }

  /** Bytes of payloads sent to the thread and not yet answered. */
  get waitingBytes(): number {
    return this.waiting;
  }

  /** Decodes the payload; with `capture`, also prepares its events for the queues (large-capture.ts). */
  async decode(located: LocatedPayload, options: DecodeOptions, capture?: CaptureRequestContext): Promise<WorkerDecoded> {
    const size = located.bytes.length;
    // One payload is always taken, so no single payload within the body limit is refused for its size alone.
    if (this.waiting > 0 && this.waiting + size > this.limits.maxWaitingBytes) throw tooManyWaiting();
    const bytes = ownedBytes(located.bytes);
    this.waiting += size;
    try {
      const reply = await this.thread.send({ bytes, compression: located.compression, options, capture }, [bytes.buffer]);
      if ('decoded' in reply) return reply.decoded;
      throw 'refused' in reply ? errorOf(reply.refused) : new Error(reply.failed);
    } finally {
      this.waiting -= size;
    }
  }

  close(): Promise<void> {
    return this.thread.close();
  }
}

/**
 * Bytes that can be handed to the thread without a copy: the buffer itself when it is the whole of its memory (a body
 * of 1 MB or more is read into memory of its own), a copy otherwise (a slice of a pooled or larger buffer). Handed
 * over, the buffer is empty on this side; the payload is not read here again.
 */
function ownedBytes(bytes: Buffer): Uint8Array<ArrayBuffer> {
  const { buffer } = bytes;
  const whole = buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === buffer.byteLength;
  return whole ? new Uint8Array(buffer) : new Uint8Array(bytes);
}

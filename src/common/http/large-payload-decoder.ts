import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ThreadRequests } from '../async/thread-requests';
import { ApiError, ErrorType } from '../errors/api-error';
import type { DecodedPayload, LargePayloadJob, OffLoopDecoder } from './payload-decoding';

/** The thread's heap: room to parse a payload at the cap (a few times its size, 1 GB at least), not the process's. */
function threadHeapMb(maxDecompressedBytes: number): number {
  return Math.max(1024, Math.ceil((4 * maxDecompressedBytes) / (1024 * 1024)));
}

type Reply = { id: number; decoded?: DecodedPayload; refused?: { status: number; type: ErrorType; code: string; detail: string; attr: string | null } | null; message?: string };

export interface DecoderLimits {
  /** Bytes of payloads, as received, that may wait for the thread (MAX_WAITING_PAYLOAD_BYTES). */
  maxWaitingBytes: number;
  /** The decompressed cap (MAX_DECOMPRESSED_BYTES): sizes the thread's heap. */
  maxDecompressedBytes: number;
}

const tooManyWaiting = () => ApiError.unavailable('Too many large payloads are waiting to be decoded. Please try again.');

/**
 * Inflates and parses large payloads on one worker thread, one at a time, at the lowest CPU priority and resting as
 * long as it worked after each (so never more than half a core; see large-payload.worker.ts). `JSON.parse`
 * of a 5 MB batch holds an event loop for 10–20 ms, and a gzip bomb costs up to its cap in zlib work and garbage;
 * on the thread, requests keep the event loop and the CPU first, and only one payload is ever inflated at once, so
 * concurrent bombs cost one per-request cap of memory, not one each. Payloads wait in the thread's queue, up to
 * `maxWaitingBytes` as received (past it: 503 with Retry-After). Small payloads stay on the loop, where a round trip
 * to the thread would cost more than the work.
 */
export class LargePayloadDecoder implements OffLoopDecoder {
  private readonly thread: ThreadRequests<Reply>;
  private waiting = 0;

  private constructor(
    script: string,
    private readonly limits: DecoderLimits,
  ) {
    // A heap of its own, bounded: a payload that decompresses past what it can hold (lz64 cannot be stopped midway)
    // ends the thread and answers 503 (retried by SDKs), instead of taking the process's heap.
    const lost = () => ApiError.unavailable('The payload could not be decoded. Please try again.');
    this.thread = new ThreadRequests<Reply>(script, lost, { maxOldGenerationSizeMb: threadHeapMb(limits.maxDecompressedBytes) });
  }

  /** The decoder, or null where the compiled thread script is absent (sources run without a build). */
  static create(limits: DecoderLimits, script = join(__dirname, 'large-payload.worker.js')): LargePayloadDecoder | null {
    return existsSync(script) ? new LargePayloadDecoder(script, limits) : null;
  }

  /** Bytes of payloads sent to the thread and not yet answered. */
  get waitingBytes(): number {
    return this.waiting;
  }

  async decode(job: LargePayloadJob): Promise<DecodedPayload> {
    const size = job.bytes.length;
    // One payload is always taken, so no single payload within the body limit is refused for its size alone.
    if (this.waiting > 0 && this.waiting + size > this.limits.maxWaitingBytes) throw tooManyWaiting();
    const bytes = ownedBytes(job.bytes);
    this.waiting += size;
    try {
      return decodedOrThrown(await this.thread.send({ ...job, bytes }, [bytes.buffer]));
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

function decodedOrThrown({ decoded, refused, message }: Reply): DecodedPayload {
  if (decoded) return decoded;
  throw refused ? new ApiError(refused.status, refused.type, refused.code, refused.detail, refused.attr) : new Error(message);
}

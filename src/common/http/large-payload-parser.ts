import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { ApiError, ErrorType } from '../errors/api-error';
import type { DecodedPayload } from './payload-decoding';

/** Payloads from this size on are parsed on the parser's thread. */
export const LARGE_PAYLOAD_BYTES = 1024 * 1024;

type Reply = { id: number; decoded?: DecodedPayload; refused?: { status: number; type: ErrorType; code: string; detail: string; attr: string | null } | null; message?: string };

/**
 * Decodes and parses large JSON payloads on a worker thread. `JSON.parse` of a 5 MB batch holds an event loop for
 * 10–20 ms, and every request due meanwhile waits; on the thread only the copy of the result back costs the loop.
 * Small payloads stay on the loop, where a round trip to the thread would cost more than the parse.
 */
export class LargePayloadParser {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, { resolve: (decoded: DecodedPayload) => void; reject: (error: unknown) => void }>();
  private nextId = 0;

  private constructor(private readonly script: string) {}

  /** The parser, or null where the compiled thread script is absent (sources run without a build, as in unit tests). */
  static create(script = join(__dirname, 'json-parse.worker.js')): LargePayloadParser | null {
    return existsSync(script) ? new LargePayloadParser(script) : null;
  }

  parse(bytes: Buffer, acceptEmptyList: boolean, measureItemsAbove?: number): Promise<DecodedPayload> {
    const worker = this.worker ?? this.start();
    const id = this.nextId++;
    const copy = new Uint8Array(bytes); // a buffer of our own, handed over without a second copy
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, bytes: copy, acceptEmptyList, measureItemsAbove }, [copy.buffer]);
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    await worker?.terminate();
  }

  private start(): Worker {
    const worker = new Worker(this.script);
    worker.unref(); // an idle parser never keeps the process alive
    worker.on('message', (reply: Reply) => this.settle(reply));
    // An uncaught error in the thread (a crash, out of memory) is followed by 'exit', which answers its requests;
    // without a listener the error would be thrown in the main thread and take the process down.
    worker.on('error', () => undefined);
    // A thread that died takes its requests with it (503, retried by SDKs); the next request starts a new one.
    worker.on('exit', () => {
      if (this.worker === worker) this.worker = null;
      for (const { reject } of this.pending.values()) reject(ApiError.unavailable('The payload could not be parsed. Please try again.'));
      this.pending.clear();
    });
    this.worker = worker;
    return worker;
  }

  private settle(reply: Reply): void {
    const waiter = this.pending.get(reply.id);
    if (!waiter) return;
    this.pending.delete(reply.id);
    if (reply.decoded) return waiter.resolve(reply.decoded);
    const refused = reply.refused;
    waiter.reject(refused ? new ApiError(refused.status, refused.type, refused.code, refused.detail, refused.attr) : new Error(reply.message));
  }
}

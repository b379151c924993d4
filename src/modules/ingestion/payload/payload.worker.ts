import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { ApiError } from '../../../common/errors/api-error';
import { prepareLargeCapture } from './large-capture';
import { decodeLocated } from './payload-decoding';
import { refusalOf, type WorkerDecoded, type WorkerReply, type WorkerRequest } from './worker-protocol';

try {
  // On Linux a thread's nice value is its own: the lowest priority for this thread alone, so a large payload or a
  // bomb takes only the CPU that requests leave over. Measured beside one 5 MB batch a second, a thread at the
  // process's priority raised capture's p99 by half. (A priority is a thread's to set: no command line reaches it.)
  setPriority(19);
} catch {
  // Where priorities cannot be changed the thread still works, at the process's priority.
}

/**
 * V8's collector, when node was started with `--expose-gc` (the service's command line: package.json, Dockerfile).
 * What a payload leaves behind (inflated chunks, counted or kept) is memory outside V8's heap, which V8 collects only
 * once about 64 MB more of it has piled up; collected after each payload, a stream of bombs costs one bomb's memory.
 */
const collectGarbage = (globalThis as { gc?: () => void }).gc;

/** The payload worker's thread (payload-worker.ts): one large payload at a time, in the order received. */
async function handle({ id, bytes, compression, options, capture }: WorkerRequest): Promise<void> {
  let reply: WorkerReply;
  let transfer: ArrayBuffer[] = [];
  try {
    const decoded: WorkerDecoded = await decodeLocated({ bytes: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), compression }, options);
    const prepared = capture ? prepareLargeCapture(decoded, capture) : decoded;
    // The jobs' bytes are handed over, not copied: they never pass through the event loop's heap as events.
    if (prepared.capture && 'jobs' in prepared.capture) transfer = prepared.capture.jobs.map((job) => job.json.buffer);
    reply = { id, decoded: prepared };
  } catch (error) {
    reply = error instanceof ApiError ? { id, refused: refusalOf(error) } : { id, failed: error instanceof Error ? error.message : String(error) };
  }
  try {
    parentPort!.postMessage(reply, transfer);
  } catch (error) {
    // A reply that cannot be sent still answers its request, so no caller waits for ever.
    parentPort!.postMessage({ id, failed: error instanceof Error ? error.message : String(error) } satisfies WorkerReply);
  }
  collectGarbage?.();
}

let last = Promise.resolve();
parentPort?.on('message', (request: WorkerRequest) => {
  last = last.then(() => handle(request)).catch(() => undefined);
});

import { setPriority } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parentPort } from 'node:worker_threads';
import { ApiError } from '../errors/api-error';
import { decodeLargePayload, type LargePayloadJob } from './payload-decoding';

/** The thread of LargePayloadDecoder: inflating, UTF-8 and JSON.parse of large payloads, off the event loop. */
type Request = Omit<LargePayloadJob, 'bytes'> & { id: number; bytes: Uint8Array };

/**
 * After a payload that took more than REST_AFTER_MS, the thread rests as long as it worked: it never takes more
 * than half a core. Its priority alone does not bound that: the garbage its buffers leave is collected by V8's
 * helper threads and the pages it touches are faulted in by the kernel, both at the process's priority.
 */
const REST_AFTER_MS = 5;

try {
  // On Linux a thread's nice value is its own: the lowest priority for this thread alone, so a large payload or a
  // bomb takes only the CPU that requests leave over.
  setPriority(19);
} catch {
  // Where priorities cannot be changed the thread still works, at the process's priority.
}

/**
 * V8's collector, called after each large payload. What a payload leaves behind (its inflated bytes, the counter's
 * slices, up to a cap for a brotli bomb) is memory outside V8's heap, which V8 collects only once about 64 MB more of
 * it has piled up: the next payload would then fill its own beside the last one's garbage (measured when forged-size
 * gzip bombs were still inflated to the cap: +239 MB under 16 of them, +152–160 MB with this). The flag puts `gc`
 * only in contexts created while it is set: it is set for this one and cleared at once.
 */
const collectGarbage = ((): (() => void) | null => {
  try {
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc') as () => void;
  } catch {
    return null;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
})();

function decode({ id, bytes, ...job }: Request): void {
  try {
    const decoded = decodeLargePayload({ ...job, bytes: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) });
    // Held strings are handed over, not copied: their bytes never pass through the event loop's heap.
    parentPort!.postMessage({ id, decoded }, decoded.held?.json.map((json) => json.buffer) ?? []);
  } catch (error) {
    const refused = error instanceof ApiError ? { status: error.status, type: error.type, code: error.code, detail: error.detail, attr: error.attr } : null;
    parentPort!.postMessage({ id, refused, message: error instanceof Error ? error.message : String(error) });
  }
}

const waiting: Request[] = [];
let draining = false;

async function drain(): Promise<void> {
  draining = true;
  for (let request = waiting.shift(); request; request = waiting.shift()) {
    const started = performance.now();
    decode(request);
    collectGarbage?.();
    const busy = performance.now() - started;
    if (busy > REST_AFTER_MS) await sleep(busy);
  }
  draining = false;
}

parentPort?.on('message', (request: Request) => {
  waiting.push(request);
  if (!draining) void drain();
});

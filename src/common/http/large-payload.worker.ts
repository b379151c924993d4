import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { ApiError } from '../errors/api-error';
import { decodeLargePayload, type LargePayloadJob } from './payload-decoding';

/** The thread of LargePayloadDecoder: inflating, UTF-8 and JSON.parse of large payloads, off the event loop. */
type Request = Omit<LargePayloadJob, 'bytes'> & { id: number; bytes: Uint8Array };

try {
  // On Linux a thread's nice value is its own: the lowest priority for this thread alone, so a large payload or a
  // bomb takes only the CPU that requests leave over.
  setPriority(19);
} catch {
  // Where priorities cannot be changed the thread still works, at the process's priority.
}

parentPort?.on('message', ({ id, bytes, ...job }: Request) => {
  try {
    const decoded = decodeLargePayload({ ...job, bytes: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) });
    parentPort!.postMessage({ id, decoded });
  } catch (error) {
    const refused = error instanceof ApiError ? { status: error.status, type: error.type, code: error.code, detail: error.detail, attr: error.attr } : null;
    parentPort!.postMessage({ id, refused, message: error instanceof Error ? error.message : String(error) });
  }
});

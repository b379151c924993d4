import { parentPort } from 'node:worker_threads';
import { ApiError } from '../../../common/errors/api-error';
import { prepareLargeCapture } from './large-capture';
import { decodeLocated } from './payload-decoding';
import { refusalOf, type WorkerDecoded, type WorkerReply, type WorkerRequest } from './worker-protocol';

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
  parentPort!.postMessage(reply, transfer);
}

let last = Promise.resolve();
parentPort?.on('message', (request: WorkerRequest) => {
  last = last.then(() => handle(request));
});

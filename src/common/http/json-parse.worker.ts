import { parentPort } from 'node:worker_threads';
import { ApiError } from '../errors/api-error';
import { decodeJsonBytes } from './payload-decoding';

/** The thread of LargePayloadParser: UTF-8 and JSON.parse of large payloads, off the event loop that serves requests. */
type Request = { id: number; bytes: Uint8Array; acceptEmptyList: boolean; measureItemsAbove?: number };

parentPort?.on('message', ({ id, bytes, acceptEmptyList, measureItemsAbove }: Request) => {
  try {
    const decoded = decodeJsonBytes(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), acceptEmptyList, measureItemsAbove);
    parentPort!.postMessage({ id, decoded });
  } catch (error) {
    const refused = error instanceof ApiError ? { status: error.status, type: error.type, code: error.code, detail: error.detail, attr: error.attr } : null;
    parentPort!.postMessage({ id, refused, message: error instanceof Error ? error.message : String(error) });
  }
});

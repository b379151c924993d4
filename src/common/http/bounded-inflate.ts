import { createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from 'node:zlib';
import type { Transform } from 'node:stream';
import { ApiError } from '../errors/api-error';
import { payloadTooLarge } from '../errors/http-error-mapping';

/** Output a request may inflate whatever the shared budget says: ordinary SDK payloads never wait or fail. */
export const ALWAYS_ALLOWED_BYTES = 1024 * 1024;

/**
 * The bytes all requests of a process may hold inflated at once. Each request also has its own cap; this bounds the
 * sum, so many concurrent gzip bombs cost the budget, not the budget times their number.
 */
export class InflateBudget {
  private inUse = 0;

  constructor(readonly totalBytes: number) {}

  /** Takes `bytes` for a request that already holds `held`; false when the budget cannot give them. */
  take(bytes: number, held: number): boolean {
    if (held + bytes > ALWAYS_ALLOWED_BYTES && this.inUse + bytes > this.totalBytes) return false;
    this.inUse += bytes;
    return true;
  }

  give(bytes: number): void {
    this.inUse -= bytes;
  }

  get used(): number {
    return this.inUse;
  }
}

const inflateBusy = () =>
  ApiError.unavailable('Too many large compressed payloads are being decompressed at once. Please try again.');

/** The decompressors a `Content-Encoding` may name (deflate: zlib-wrapped when it starts with 0x78, raw otherwise). */
export type Encoding = 'gzip' | 'deflate' | 'br';

function decompressorFor(encoding: Encoding, bytes: Buffer): Transform {
  if (encoding === 'gzip') return createGunzip();
  if (encoding === 'br') return createBrotliDecompress();
  return bytes[0] === 0x78 ? createInflate() : createInflateRaw();
}

/**
 * Inflates chunk by chunk and stops the moment the output passes `limit` (413) or the shared budget runs out (503):
 * a bomb never costs more than what it had inflated when it was stopped. The caller gives the returned `held` bytes
 * back to the budget once it is done with the output.
 */
export function inflateBounded(encoding: Encoding, bytes: Buffer, limit: number, budget: InflateBudget | undefined, invalid: () => ApiError): Promise<{ output: Buffer; held: number }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let held = 0;
    let settled = false;
    const gunzip = decompressorFor(encoding, bytes);
    const fail = (error: ApiError) => {
      if (settled) return;
      settled = true;
      gunzip.destroy();
      budget?.give(held);
      chunks.length = 0;
      reject(error);
    };
    gunzip.on('data', (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > limit) return fail(payloadTooLarge(limit));
      if (budget && !budget.take(chunk.length, held)) return fail(inflateBusy());
      if (budget) held += chunk.length;
      chunks.push(chunk);
    });
    gunzip.on('error', () => fail(invalid()));
    gunzip.on('end', () => {
      if (settled) return;
      settled = true;
      resolve({ output: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size), held });
    });
    gunzip.end(bytes);
  });
}

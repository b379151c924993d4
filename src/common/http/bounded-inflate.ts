import { brotliDecompressSync, createBrotliDecompress, createGunzip, createInflate, createInflateRaw, gunzipSync, inflateRawSync, inflateSync, type ZlibOptions } from 'node:zlib';
import type { Transform } from 'node:stream';
import { Gunzip, Inflate, Unzlib } from 'fflate';
import type { ApiError } from '../errors/api-error';

/** The decompressors a `Content-Encoding` may name (deflate: zlib-wrapped when it starts with 0x78, raw otherwise). */
export type Encoding = 'gzip' | 'deflate' | 'br';

interface Decompressor {
  stream: (options?: ZlibOptions) => Transform;
  sync: (bytes: Buffer, options: ZlibOptions) => Buffer;
}

function decompressorFor(encoding: Encoding, bytes: Buffer): Decompressor {
  if (encoding === 'gzip') return { stream: createGunzip, sync: gunzipSync };
  if (encoding === 'br') return { stream: createBrotliDecompress, sync: brotliDecompressSync };
  return bytes[0] === 0x78 ? { stream: createInflate, sync: inflateSync } : { stream: createInflateRaw, sync: inflateRawSync };
}

/**
 * zlib's output chunk on the decoding thread. Measured on a bomb stopped at 100 MB: 64 KB costs half the CPU of
 * zlib's 16 KB (fewer buffers to allocate and collect) and less than 1 MB (whose fresh pages the kernel must fault
 * in). Inline inflation, at most 1 MB of ordinary SDK batches, keeps zlib's default.
 */
const THREAD_CHUNK_BYTES = 64 * 1024;

/**
 * The size a gzip member says it inflates to (its trailer's ISIZE, modulo 4 GiB). A sender can lie, so it only
 * refuses what claims more than the cap and chooses where a payload is inflated; limits are enforced while inflating.
 */
export function gzipClaimedSize(bytes: Buffer): number {
  return bytes.length >= 18 ? bytes.readUInt32LE(bytes.length - 4) : 0;
}

/**
 * Inflates on zlib's thread pool chunk by chunk and stops the moment the output passes `limit`: a bomb never costs
 * more than `limit` bytes. Resolves null when the output would pass the limit.
 */
export function inflateBounded(encoding: Encoding, bytes: Buffer, limit: number, invalid: () => ApiError): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const inflater = decompressorFor(encoding, bytes).stream();
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      outcome();
    };
    inflater.on('data', (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      inflater.destroy();
      chunks.length = 0;
      settle(() => resolve(null));
    });
    inflater.on('error', () => settle(() => reject(invalid())));
    inflater.on('end', () => settle(() => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size))));
    inflater.end(bytes);
  });
}

/**
 * Inflates synchronously and stops the moment the output passes `limit` (zlib's `maxOutputLength`). Returns null when
 * the output would pass the limit. Every byte of output up to the limit is alive until it returns.
 */
export function inflateBoundedSync(encoding: Encoding, bytes: Buffer, limit: number, invalid: () => ApiError): Buffer | null {
  try {
    return decompressorFor(encoding, bytes).sync(bytes, { maxOutputLength: limit, chunkSize: THREAD_CHUNK_BYTES });
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') return null;
    throw invalid();
  }
}

/**
 * Inflates on the decoding thread, where blocking is the point, and returns null past `limit`. Node's synchronous zlib
 * holds all of its output until it ends, so it is trusted only as far as the payload's size can be believed
 * (`believable`: what a gzip trailer claims, or nothing for deflate). Past that, the payload is first counted through
 * fflate, which holds one slice's output at a time: a bomb that hides its size (a forged trailer, deflate) is refused
 * for a few megabytes instead of a cap of memory, and what is counted within the limit (several gzip members,
 * a large deflate body) is inflated whole after. Brotli has no such inflater, so it is inflated up to the limit.
 */
export function inflateOnThread(encoding: Encoding, bytes: Buffer, limits: { limit: number; believable: number }, invalid: () => ApiError): Buffer | null {
  const trusted = Math.min(limits.limit, limits.believable);
  if (trusted > 0) {
    const inflated = inflateBoundedSync(encoding, bytes, trusted, invalid);
    if (inflated !== null || trusted === limits.limit) return inflated;
  }
  if (encoding !== 'br' && inflatedSize(encoding, bytes, limits.limit, invalid) === null) return null;
  return inflateBoundedSync(encoding, bytes, limits.limit, invalid);
}

/**
 * Compressed bytes given to the counting inflater at once. Deflate expands at most about 1,032 times, so one slice
 * yields at most about 1 MB (measured on a bomb stopped at 100 MB: 230–350 ms, 3–4 times zlib's CPU).
 */
const COUNT_SLICE_BYTES = 1024;

/** The size gzip or deflate bytes inflate to, counted without keeping the output; null once it passes `limit`. */
export function inflatedSize(encoding: 'gzip' | 'deflate', bytes: Buffer, limit: number, invalid: () => ApiError): number | null {
  let size = 0;
  const count = (chunk: Uint8Array) => void (size += chunk.length);
  const inflater = encoding === 'gzip' ? new Gunzip(count) : bytes[0] === 0x78 ? new Unzlib(count) : new Inflate(count);
  try {
    for (let at = 0; at < bytes.length && size <= limit; at += COUNT_SLICE_BYTES) {
      inflater.push(bytes.subarray(at, at + COUNT_SLICE_BYTES), at + COUNT_SLICE_BYTES >= bytes.length);
    }
  } catch {
    throw invalid();
  }
  return size <= limit ? size : null;
}

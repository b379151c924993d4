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
  return isZlibWrapped(bytes) ? { stream: createInflate, sync: inflateSync } : { stream: createInflateRaw, sync: inflateRawSync };
}

/** Deflate as `Content-Encoding` names it is zlib-wrapped (RFC 1950), but some clients send it raw: the wrapper starts with 0x78. */
function isZlibWrapped(bytes: Buffer): boolean {
  return bytes[0] === 0x78;
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
 * How much of a payload is inflated to tell a bomb from garbage: garbage fails within its first bytes, so output this
 * long means valid compressed data. Standard bombs arrive by the dozen a second; this is all each one costs.
 */
export const BOMB_PROBE_BYTES = 64 * 1024;

/**
 * The most output zlib is trusted to produce per byte received. JSON rarely compresses past 20:1; a bomb does about
 * 1,000:1. A payload past it is not refused, only counted before it is kept (see inflateCountingPastTrust).
 */
const TRUSTED_RATIO = 64;

/**
 * How much output a payload is trusted to inflate to before it has been counted: what a gzip trailer claims (a sender
 * can forge it), but never more than TRUSTED_RATIO times the bytes received, and the probe's length at least. Within
 * that, what zlib holds is what a legitimate payload of that many bytes would cost.
 */
export function trustedOutputBytes(encoding: Encoding, bytes: Buffer, limit: number): number {
  const claimed = encoding === 'gzip' ? gzipClaimedSize(bytes) : Infinity;
  return Math.min(limit, Math.max(BOMB_PROBE_BYTES, Math.min(claimed, TRUSTED_RATIO * bytes.length)));
}

/**
 * Inflates (synchronously: on the decoding thread, where blocking is the point) and returns null past `limit`. Node's
 * synchronous zlib holds all of its output until it ends, so it is given only what the payload can be trusted to
 * inflate to (trustedOutputBytes). What passes that (a forged gzip trailer, a deflate bomb, several gzip members) is
 * first counted through fflate, which keeps none of its output, and refused once the count passes the limit; what
 * fits is then inflated whole by zlib, which also decides what fflate cannot read. Brotli has no such counter, so past
 * the trust it is inflated up to the limit.
 */
export function inflateCountingPastTrust(encoding: Encoding, bytes: Buffer, limit: number, invalid: () => ApiError): Buffer | null {
  const trusted = trustedOutputBytes(encoding, bytes, limit);
  const inflated = inflateBoundedSync(encoding, bytes, trusted, invalid);
  if (inflated !== null || trusted === limit) return inflated;
  if (encoding !== 'br' && countInflated(encoding, bytes, limit) === 'over') return null;
  return inflateBoundedSync(encoding, bytes, limit, invalid);
}

/**
 * Compressed bytes given to the counting inflater at once. Deflate expands at most about 1,032 times, so one slice
 * yields at most about 1 MB (measured on a bomb stopped at 100 MB: 230–430 ms, against 85 ms for zlib).
 */
const COUNT_SLICE_BYTES = 1024;

/**
 * Whether gzip or deflate bytes inflate to more than `limit`, counted without keeping the output. It does not
 * validate: 'unreadable' is what fflate cannot read before passing the limit (zlib decides then; it reads some of
 * that, such as zero padding after a gzip member), and checksums and truncation are left to zlib.
 */
export function countInflated(encoding: 'gzip' | 'deflate', bytes: Buffer, limit: number): 'within' | 'over' | 'unreadable' {
  let size = 0;
  const count = (chunk: Uint8Array) => void (size += chunk.length);
  const inflater = encoding === 'gzip' ? new Gunzip(count) : isZlibWrapped(bytes) ? new Unzlib(count) : new Inflate(count);
  try {
    for (let at = 0; at < bytes.length && size <= limit; at += COUNT_SLICE_BYTES) {
      inflater.push(bytes.subarray(at, at + COUNT_SLICE_BYTES), at + COUNT_SLICE_BYTES >= bytes.length);
    }
  } catch {
    return size > limit ? 'over' : 'unreadable';
  }
  return size <= limit ? 'within' : 'over';
}

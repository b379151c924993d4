import { createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from 'node:zlib';
import type { Transform } from 'node:stream';

/** The decompressors a `Content-Encoding` may name (deflate: zlib-wrapped when it starts with 0x78, raw otherwise). */
export type Encoding = 'gzip' | 'deflate' | 'br';

/**
 * zlib's output chunk. Measured on a bomb stopped at 100 MB: 64 KB costs half the CPU of zlib's 16 KB (fewer buffers
 * to allocate and collect) and less than 1 MB (whose fresh pages the kernel must fault in).
 */
const CHUNK_BYTES = 64 * 1024;

/**
 * How much of a payload is inflated to tell a bomb from garbage: garbage fails within its first bytes, so output this
 * long means valid compressed data. It is also the least output any payload is trusted to reach (see TRUSTED_RATIO).
 */
export const BOMB_PROBE_BYTES = 64 * 1024;

/**
 * The most output a payload is trusted to inflate to per byte received before it has been counted. JSON rarely
 * compresses past 20:1; a bomb does about 1,000:1.
 */
const TRUSTED_RATIO = 64;

/**
 * How much output a payload is trusted to reach before it has been counted: what a gzip trailer claims (a sender can
 * forge it: it only ever lowers the trust), never more than TRUSTED_RATIO times the bytes received, the probe's
 * length at least and the limit at most.
 */
function trustedOutputBytes(encoding: Encoding, bytes: Buffer, limit: number): number {
  const claimed = encoding === 'gzip' ? gzipClaimedSize(bytes) : Infinity;
  return Math.min(limit, Math.max(BOMB_PROBE_BYTES, Math.min(claimed, TRUSTED_RATIO * bytes.length)));
}

/**
 * The size a gzip member says it inflates to (its trailer's ISIZE, modulo 4 GiB). A sender can lie, so it only
 * refuses what claims more than the cap and chooses where a payload is inflated; limits are enforced while inflating.
 */
export function gzipClaimedSize(bytes: Buffer): number {
  return bytes.length >= 18 ? bytes.readUInt32LE(bytes.length - 4) : 0;
}

function inflaterFor(encoding: Encoding, bytes: Buffer): Transform {
  const options = { chunkSize: CHUNK_BYTES };
  if (encoding === 'gzip') return createGunzip(options);
  if (encoding === 'br') return createBrotliDecompress(options);
  // Deflate as `Content-Encoding` names it is zlib-wrapped (RFC 1950), but some clients send it raw.
  return bytes[0] === 0x78 ? createInflate(options) : createInflateRaw(options);
}

/**
 * One pass of zlib over the bytes: the output, when it ends within `keep`; null past `keep`, where chunks are counted
 * and dropped as they come, so no more than `keep` is ever held; `over` once the count passes `limit` (it stops there).
 */
export function inflatePass(encoding: Encoding, bytes: Buffer, keep: number, limit: number): Promise<{ output: Buffer | null; over: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const inflater = inflaterFor(encoding, bytes);
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      outcome();
    };
    inflater.on('data', (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > limit) {
        inflater.destroy();
        chunks.length = 0;
        return settle(() => resolve({ output: null, over: true }));
      }
      if (size <= keep) chunks.push(chunk);
      else chunks.length = 0; // past the trust: counted from here on, never held
    });
    inflater.on('error', (error) => settle(() => reject(error)));
    inflater.on('end', () => settle(() => resolve({ output: size <= keep ? Buffer.concat(chunks, size) : null, over: false })));
    inflater.end(bytes);
  });
}

/**
 * Inflates `bytes` in chunks on zlib's thread pool and stops the moment the output passes `limit`: resolves the output,
 * or null past the limit; rejects with `invalid()` for data zlib cannot read. A bomb never costs more than its trust
 * in memory: output is kept only up to what it claims and 64 bytes per byte received (trustedOutputBytes). A payload
 * that inflates past that is counted to its end without being held, and inflated again, kept, only when it fits the
 * limit (several gzip members, a legitimate payload that compresses better than 64:1). A gzip trailer claiming more than the limit is
 * a bomb or garbage: only its first BOMB_PROBE_BYTES are inflated, to tell which (null, or `invalid()`).
 */
export async function inflateWithin(encoding: Encoding, bytes: Buffer, limit: number, invalid: () => Error): Promise<Buffer | null> {
  try {
    if (encoding === 'gzip' && gzipClaimedSize(bytes) > limit) {
      const probe = await inflatePass(encoding, bytes, 0, Math.min(limit, BOMB_PROBE_BYTES));
      if (probe.over) return null;
      throw invalid(); // a whole member shorter than its claim: the trailer does not match it
    }
    const trusted = trustedOutputBytes(encoding, bytes, limit);
    const first = await inflatePass(encoding, bytes, trusted, limit);
    if (first.over || first.output !== null) return first.output;
    return (await inflatePass(encoding, bytes, limit, limit)).output;
  } catch {
    throw invalid(); // zlib's own error names no payload: PostHog's message does
  }
}

import zlib = require('node:zlib');
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { ApiError } from '../../../src/common/errors/api-error';
import { countInflated, gzipClaimedSize, inflateBounded, inflateBoundedSync, inflateCountingPastTrust, trustedOutputBytes } from '../../../src/common/http/bounded-inflate';

const invalid = () => new ApiError(400, 'validation_error', 'invalid_payload', 'Malformed request data: invalid GZIP data');
const BOMB = gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20));
const TEXT = JSON.stringify({ batch: Array.from({ length: 2000 }, (_, i) => ({ event: `e${i}` })) });

const inflaters = [
  ['on the thread pool', (encoding: 'gzip' | 'deflate' | 'br', bytes: Buffer, limit: number) => inflateBounded(encoding, bytes, limit, invalid)],
  ['synchronously', async (encoding: 'gzip' | 'deflate' | 'br', bytes: Buffer, limit: number) => inflateBoundedSync(encoding, bytes, limit, invalid)],
] as const;

describe.each(inflaters)('bounded inflating %s', (_label, inflate) => {
  it('inflates within the limit, and a limit of exactly the output size is within it', async () => {
    expect((await inflate('gzip', gzipSync(TEXT), 1e8))?.toString()).toBe(TEXT);
    expect((await inflate('gzip', gzipSync(TEXT), TEXT.length))?.toString()).toBe(TEXT);
  });

  it('stops at the limit: null for a bomb and for one byte too many', async () => {
    await expect(inflate('gzip', BOMB, 4 * 1024 * 1024)).resolves.toBeNull();
    await expect(inflate('gzip', gzipSync(TEXT), TEXT.length - 1)).resolves.toBeNull();
  });

  it.each([
    ['deflate (zlib-wrapped)', 'deflate', deflateSync],
    ['deflate (raw)', 'deflate', deflateRawSync],
    ['br', 'br', brotliCompressSync],
  ] as const)('inflates %s too, and stops it at the limit', async (_name, encoding, compress) => {
    expect((await inflate(encoding, compress(Buffer.from('{"batch":[]}')), 1e6))?.toString()).toBe('{"batch":[]}');
    await expect(inflate(encoding, compress(Buffer.alloc(8 * 1024 * 1024, 0x20)), 1024 * 1024)).resolves.toBeNull();
  });

  it('answers invalid or truncated data with the caller’s error', async () => {
    await expect(inflate('gzip', Buffer.from([0x1f, 0x8b, 1, 2, 3]), 1e6)).rejects.toMatchObject({ status: 400 });
    await expect(inflate('gzip', gzipSync(TEXT).subarray(0, 100), 1e6)).rejects.toMatchObject({ status: 400 });
  });
});

describe(gzipClaimedSize.name, () => {
  it('reads the size a gzip trailer claims', () => {
    expect(gzipClaimedSize(gzipSync(TEXT))).toBe(TEXT.length);
    expect(gzipClaimedSize(BOMB)).toBe(64 * 1024 * 1024);
    expect(gzipClaimedSize(Buffer.from([0x1f, 0x8b]))).toBe(0);
  });
});

/** A gzip payload whose trailer claims `size` bytes, whatever it really inflates to. */
function forged(bytes: Buffer, size: number): Buffer {
  const copy = Buffer.from(bytes);
  copy.writeUInt32LE(size, copy.length - 4);
  return copy;
}

/** About 300 KB of JSON that compresses as SDK batches do (well under 64:1). */
const LARGE_TEXT = JSON.stringify(Array.from({ length: 6000 }, (_, i) => ({ event: `e${(i * 7919) % 1000}`, distinct_id: `u${(i * 104729) % 9973}`, n: (i * 31337) % 100003 })));
const CAP = 32 * 1024 * 1024;

describe(trustedOutputBytes.name, () => {
  it('trusts what a gzip trailer claims, within 64 bytes out per byte in, the probe’s 64 KB at least and the limit at most', () => {
    const honest = gzipSync(LARGE_TEXT);
    expect(trustedOutputBytes('gzip', honest, CAP)).toBe(LARGE_TEXT.length);
    expect(trustedOutputBytes('gzip', forged(BOMB, CAP), CAP)).toBe(64 * BOMB.length);
    expect(trustedOutputBytes('gzip', forged(BOMB, 1024), CAP)).toBe(64 * 1024);
    expect(trustedOutputBytes('gzip', honest, 100_000)).toBe(100_000);
  });

  it('trusts deflate and brotli, which claim nothing, for 64 bytes out per byte in', () => {
    const deflated = deflateSync(LARGE_TEXT);
    expect(trustedOutputBytes('deflate', deflated, CAP)).toBe(64 * deflated.length);
    expect(trustedOutputBytes('br', brotliCompressSync(Buffer.alloc(1024 * 1024, 0x20)), CAP)).toBe(64 * 1024);
  });
});

describe(inflateCountingPastTrust.name, () => {
  /** The output limits zlib's synchronous inflaters were given: what they could have held at once. */
  function zlibOutputLimits(): { limits: number[]; restore: () => void } {
    const limits: number[] = [];
    const spies = (['gunzipSync', 'inflateSync', 'inflateRawSync', 'brotliDecompressSync'] as const).map((name) => {
      const original = zlib[name] as (bytes: Buffer, options: zlib.ZlibOptions) => Buffer;
      return jest.spyOn(zlib, name).mockImplementation(((bytes: Buffer, options: zlib.ZlibOptions) => {
        limits.push(options.maxOutputLength ?? Infinity);
        return original(bytes, options);
      }) as never);
    });
    return { limits, restore: () => spies.forEach((spy) => spy.mockRestore()) };
  }

  let zlibCalls: ReturnType<typeof zlibOutputLimits>;
  beforeEach(() => (zlibCalls = zlibOutputLimits()));
  afterEach(() => zlibCalls.restore());

  it('inflates a payload that is what it claims with zlib alone, given only the claim', () => {
    expect(inflateCountingPastTrust('gzip', gzipSync(LARGE_TEXT), CAP, invalid)?.toString()).toBe(LARGE_TEXT);
    expect(zlibCalls.limits).toEqual([LARGE_TEXT.length]);
  });

  it('refuses bombs whose trailer claims 1 KB or the cap, and deflate bombs, with zlib never given more than 64 bytes out per byte in', () => {
    const deflateBomb = deflateSync(Buffer.alloc(64 * 1024 * 1024, 0x20));
    const rawBomb = deflateRawSync(Buffer.alloc(64 * 1024 * 1024, 0x20));
    expect(inflateCountingPastTrust('gzip', forged(BOMB, 1024), CAP, invalid)).toBeNull();
    expect(inflateCountingPastTrust('gzip', forged(BOMB, CAP), CAP, invalid)).toBeNull();
    expect(inflateCountingPastTrust('deflate', deflateBomb, CAP, invalid)).toBeNull();
    expect(inflateCountingPastTrust('deflate', rawBomb, CAP, invalid)).toBeNull();
    expect(zlibCalls.limits).toEqual([64 * 1024, 64 * BOMB.length, 64 * deflateBomb.length, 64 * rawBomb.length]);
    expect(Math.max(...zlibCalls.limits)).toBeLessThan(CAP / 4);
  });

  it('inflates whole, after counting, what passes its trust within the limit: several gzip members, zero padding', () => {
    const members = Buffer.concat([gzipSync(LARGE_TEXT.slice(0, -10)), gzipSync(LARGE_TEXT.slice(-10))]);
    expect(inflateCountingPastTrust('gzip', members, CAP, invalid)?.toString()).toBe(LARGE_TEXT);
    // zlib reads zero bytes after a member as padding; fflate cannot read them, so zlib decides.
    const padded = Buffer.concat([gzipSync(LARGE_TEXT), Buffer.alloc(4)]);
    expect(inflateCountingPastTrust('gzip', padded, CAP, invalid)?.toString()).toBe(LARGE_TEXT);
    expect(zlibCalls.limits).toEqual([64 * 1024, CAP, 64 * 1024, CAP]);
  });

  it('refuses without counting a payload trusted up to the limit that passes it', () => {
    expect(inflateCountingPastTrust('gzip', gzipSync(LARGE_TEXT), 100_000, invalid)).toBeNull();
    expect(zlibCalls.limits).toEqual([100_000]);
  });

  it('inflates brotli past its trust up to the limit, having no counter for it', () => {
    const bomb = brotliCompressSync(Buffer.alloc(8 * 1024 * 1024, 0x20));
    expect(inflateCountingPastTrust('br', bomb, 1024 * 1024, invalid)).toBeNull();
    expect(zlibCalls.limits).toEqual([64 * 1024, 1024 * 1024]);
  });

  it('answers garbage with the caller’s error', () => {
    expect(() => inflateCountingPastTrust('gzip', Buffer.concat([gzipSync(LARGE_TEXT), Buffer.from('garbage')]), CAP, invalid)).toThrow(ApiError);
    expect(() => inflateCountingPastTrust('deflate', Buffer.from([0x78, 0x9c, 1, 2, 3, 4]), CAP, invalid)).toThrow(ApiError);
  });
});

describe(countInflated.name, () => {
  it('tells whether gzip and both kinds of deflate inflate past the limit, exactly', () => {
    for (const [encoding, compress] of [['gzip', gzipSync], ['deflate', deflateSync], ['deflate', deflateRawSync]] as const) {
      expect(countInflated(encoding, compress(TEXT), TEXT.length)).toBe('within');
      expect(countInflated(encoding, compress(TEXT), TEXT.length - 1)).toBe('over');
    }
    expect(countInflated('gzip', BOMB, 1e6)).toBe('over');
  });

  it('calls unreadable what fflate cannot read, for zlib to decide', () => {
    expect(countInflated('gzip', Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9]), 1e6)).toBe('unreadable');
    expect(countInflated('gzip', gzipSync(TEXT).subarray(0, 100), 1e6)).toBe('unreadable');
    expect(countInflated('gzip', Buffer.concat([gzipSync(TEXT), Buffer.alloc(4)]), 1e6)).toBe('unreadable');
  });
});

import zlib = require('node:zlib');
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { ApiError } from '../../../src/common/errors/api-error';
import { gzipClaimedSize, inflateBounded, inflateBoundedSync, inflatedSize, inflateOnThread } from '../../../src/common/http/bounded-inflate';

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

describe(inflateOnThread.name, () => {
  /** The output limits zlib's synchronous inflaters were given: what they could have held at once. */
  function nativeLimits(): { limits: number[]; restore: () => void } {
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

  let zlibCalls: ReturnType<typeof nativeLimits>;
  beforeEach(() => (zlibCalls = nativeLimits()));
  afterEach(() => zlibCalls.restore());

  const CAP = 32 * 1024 * 1024;

  it('inflates a gzip payload that is what its trailer claims with zlib alone, trusting the claim', () => {
    expect(inflateOnThread('gzip', gzipSync(TEXT), { limit: CAP, believable: TEXT.length }, invalid)?.toString()).toBe(TEXT);
    expect(zlibCalls.limits).toEqual([TEXT.length]);
  });

  it('refuses a bomb with a forged trailer without ever letting zlib hold more than the claim', () => {
    expect(inflateOnThread('gzip', forged(BOMB, 1024), { limit: CAP, believable: 64 * 1024 }, invalid)).toBeNull();
    expect(zlibCalls.limits).toEqual([64 * 1024]);
  });

  it('refuses a deflate bomb (which claims nothing) without zlib inflating it at all', () => {
    const bomb = deflateSync(Buffer.alloc(64 * 1024 * 1024, 0x20));
    expect(inflateOnThread('deflate', bomb, { limit: CAP, believable: 0 }, invalid)).toBeNull();
    expect(inflateOnThread('deflate', deflateRawSync(Buffer.alloc(64 * 1024 * 1024, 0x20)), { limit: CAP, believable: 0 }, invalid)).toBeNull();
    expect(zlibCalls.limits).toEqual([]);
  });

  it('inflates whole, after counting, what passes its claim within the limit: several gzip members, a deflate body', () => {
    const members = Buffer.concat([gzipSync(TEXT.slice(0, 10)), gzipSync(TEXT.slice(10))]);
    expect(inflateOnThread('gzip', members, { limit: CAP, believable: 64 }, invalid)?.toString()).toBe(TEXT);
    expect(inflateOnThread('deflate', deflateSync(TEXT), { limit: CAP, believable: 0 }, invalid)?.toString()).toBe(TEXT);
    expect(zlibCalls.limits).toEqual([64, CAP, CAP]);
  });

  it('inflates brotli up to the limit, having no counting inflater for it', () => {
    expect(inflateOnThread('br', brotliCompressSync(Buffer.alloc(8 * 1024 * 1024, 0x20)), { limit: 1024 * 1024, believable: 0 }, invalid)).toBeNull();
    expect(zlibCalls.limits).toEqual([1024 * 1024]);
  });

  it('answers garbage that passes the claim with the caller’s error, whether counting or inflating finds it', () => {
    expect(() => inflateOnThread('gzip', Buffer.concat([gzipSync(TEXT), Buffer.from('garbage')]), { limit: CAP, believable: 64 }, invalid)).toThrow(ApiError);
    expect(() => inflateOnThread('deflate', Buffer.from([0x78, 0x9c, 1, 2, 3, 4]), { limit: CAP, believable: 0 }, invalid)).toThrow(ApiError);
  });
});

describe(inflatedSize.name, () => {
  it('counts exactly what gzip and both kinds of deflate inflate to, and null one byte past the limit', () => {
    for (const [encoding, compress] of [['gzip', gzipSync], ['deflate', deflateSync], ['deflate', deflateRawSync]] as const) {
      expect(inflatedSize(encoding, compress(TEXT), TEXT.length, invalid)).toBe(TEXT.length);
      expect(inflatedSize(encoding, compress(TEXT), TEXT.length - 1, invalid)).toBeNull();
    }
    expect(inflatedSize('gzip', BOMB, 1e6, invalid)).toBeNull();
  });

  it('answers invalid or truncated data with the caller’s error', () => {
    expect(() => inflatedSize('gzip', Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9]), 1e6, invalid)).toThrow(ApiError);
    expect(() => inflatedSize('gzip', gzipSync(TEXT).subarray(0, 100), 1e6, invalid)).toThrow(ApiError);
  });
});

import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { ApiError } from '../../../src/common/errors/api-error';
import { gzipClaimedSize, inflateBounded, inflateBoundedSync } from '../../../src/common/http/bounded-inflate';

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

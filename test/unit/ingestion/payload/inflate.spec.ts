import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { ApiError } from '../../../../src/common/errors/api-error';
import { gzipClaimedSize, inflatePass, inflateWithin } from '../../../../src/modules/ingestion/payload/inflate';

const invalid = () => new ApiError(400, 'validation_error', 'invalid_payload', 'Malformed request data: invalid GZIP data');
const BOMB = gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20));
const TEXT = JSON.stringify({ batch: Array.from({ length: 2000 }, (_, i) => ({ event: `e${i}` })) });
/** About 300 KB of JSON that compresses as SDK batches do (well under 64:1). */
const LARGE_TEXT = JSON.stringify(Array.from({ length: 6000 }, (_, i) => ({ event: `e${(i * 7919) % 1000}`, distinct_id: `u${(i * 104729) % 9973}`, n: (i * 31337) % 100003 })));
const CAP = 32 * 1024 * 1024;

/** A gzip payload whose trailer claims `size` bytes, whatever it really inflates to. */
function forged(bytes: Buffer, size: number): Buffer {
  const copy = Buffer.from(bytes);
  copy.writeUInt32LE(size, copy.length - 4);
  return copy;
}

describe(inflateWithin.name, () => {
  it('inflates within the limit, and a limit of exactly the output size is within it', async () => {
    expect((await inflateWithin('gzip', gzipSync(TEXT), 1e8, invalid))?.toString()).toBe(TEXT);
    expect((await inflateWithin('gzip', gzipSync(LARGE_TEXT), LARGE_TEXT.length, invalid))?.toString()).toBe(LARGE_TEXT);
  });

  it('stops at the limit: null for a bomb and for one byte too many', async () => {
    await expect(inflateWithin('gzip', forged(BOMB, 1024), 4 * 1024 * 1024, invalid)).resolves.toBeNull();
    await expect(inflateWithin('gzip', gzipSync(LARGE_TEXT), LARGE_TEXT.length - 1, invalid)).resolves.toBeNull();
  });

  it.each([
    ['deflate (zlib-wrapped)', 'deflate', deflateSync],
    ['deflate (raw)', 'deflate', deflateRawSync],
    ['br', 'br', brotliCompressSync],
  ] as const)('inflates %s too, and stops it at the limit', async (_name, encoding, compress) => {
    expect((await inflateWithin(encoding, compress(Buffer.from('{"batch":[]}')), 1e6, invalid))?.toString()).toBe('{"batch":[]}');
    await expect(inflateWithin(encoding, compress(Buffer.alloc(8 * 1024 * 1024, 0x20)), 1024 * 1024, invalid)).resolves.toBeNull();
  });

  describe('what it trusts: 64 bytes out per byte in', () => {
    it('keeps no output past what a pass may keep, and counts it to the limit', async () => {
      const bomb = forged(BOMB, 1024);
      await expect(inflatePass('gzip', gzipSync(LARGE_TEXT), LARGE_TEXT.length, CAP)).resolves.toEqual({ output: Buffer.from(LARGE_TEXT), over: false });
      await expect(inflatePass('gzip', gzipSync(LARGE_TEXT), LARGE_TEXT.length - 1, CAP)).resolves.toEqual({ output: null, over: false });
      await expect(inflatePass('gzip', bomb, 64 * 1024, CAP)).resolves.toEqual({ output: null, over: true });
    });

    it('inflates whole what passed its trust within the limit: several gzip members, a run of spaces', async () => {
      const members = Buffer.concat([gzipSync(LARGE_TEXT.slice(0, -10)), gzipSync(LARGE_TEXT.slice(-10))]);
      expect((await inflateWithin('gzip', members, CAP, invalid))?.toString()).toBe(LARGE_TEXT);
      const spaces = Buffer.alloc(8 * 1024 * 1024, 0x20);
      expect((await inflateWithin('deflate', deflateSync(spaces), CAP, invalid))?.equals(spaces)).toBe(true);
    });

    it('answers a payload claiming more than the limit from its first 64 KB: null for a bomb, the caller’s error for garbage', async () => {
      await expect(inflateWithin('gzip', BOMB, CAP, invalid)).resolves.toBeNull();
      await expect(inflateWithin('gzip', forged(gzipSync(TEXT), CAP + 1), CAP, invalid)).rejects.toMatchObject({ status: 400 });
    });
  });

  it('answers invalid or truncated data with the caller’s error', async () => {
    await expect(inflateWithin('gzip', Buffer.from([0x1f, 0x8b, 1, 2, 3]), 1e6, invalid)).rejects.toMatchObject({ status: 400, detail: 'Malformed request data: invalid GZIP data' });
    await expect(inflateWithin('gzip', gzipSync(TEXT).subarray(0, 100), 1e6, invalid)).rejects.toMatchObject({ status: 400 });
    await expect(inflateWithin('deflate', Buffer.from([0x78, 0x9c, 1, 2, 3, 4]), 1e6, invalid)).rejects.toMatchObject({ status: 400 });
  });

  it('reads a gzip member padded with zero bytes, as zlib does', async () => {
    const padded = Buffer.concat([gzipSync(LARGE_TEXT), Buffer.alloc(4)]);
    expect((await inflateWithin('gzip', padded, CAP, invalid))?.toString()).toBe(LARGE_TEXT);
  });
});

describe(gzipClaimedSize.name, () => {
  it('reads the size a gzip trailer claims', () => {
    expect(gzipClaimedSize(gzipSync(TEXT))).toBe(TEXT.length);
    expect(gzipClaimedSize(BOMB)).toBe(64 * 1024 * 1024);
    expect(gzipClaimedSize(Buffer.from([0x1f, 0x8b]))).toBe(0);
  });
});

import { deflateSync, gzipSync } from 'node:zlib';
import LZString from 'lz-string';
import { ApiError } from '../../../../src/common/errors/api-error';
import { parsedJsonTooDeep } from '../../../../src/common/json/json-depth';
import { decodePayload, type DecodeOptions, type LargePayloadHandler } from '../../../../src/modules/ingestion/payload/payload-decoding';
import { PayloadWorker } from '../../../../src/modules/ingestion/payload/payload-worker';
import { compiledFile } from '../../../support/compiled';

const CAP = 4 * 1024 * 1024;
const BOMB = gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20));
const body = (bytes: Buffer) => ({ body: bytes, contentType: 'text/plain', contentEncoding: undefined, query: {} });
const statusOf = (promise: Promise<unknown>) => promise.then(() => 200, (error: ApiError) => `${error.status} ${error.code}`);

/** A gzip payload whose trailer claims `size` bytes, whatever it really inflates to. */
function forged(bytes: Buffer, size: number): Buffer {
  const copy = Buffer.from(bytes);
  copy.writeUInt32LE(size, copy.length - 4);
  return copy;
}

describe('decodePayload: where compressed payloads are inflated, and when they are refused', () => {
  let worker: PayloadWorker;
  let large: LargePayloadHandler;
  const options: DecodeOptions = { maxDecompressedBytes: CAP };
  let onThread: jest.SpyInstance;

  beforeAll(() => {
    worker = PayloadWorker.create({ maxWaitingBytes: CAP, maxDecompressedBytes: CAP }, compiledFile('modules/ingestion/payload/payload.worker.js'))!;
    large = (located) => worker.decode(located, options);
  });
  beforeEach(() => (onThread = jest.spyOn(worker, 'decode')));
  afterEach(() => onThread.mockRestore());
  afterAll(() => worker.close());

  it('inflates an ordinary gzip batch inline', async () => {
    const payload = [{ event: 'small' }];
    await expect(decodePayload(body(gzipSync(JSON.stringify(payload))), options, large)).resolves.toMatchObject({ value: payload });
    expect(onThread).not.toHaveBeenCalled();
  });

  it('sends a gzip payload whose trailer claims 1 MB or more to the thread', async () => {
    const payload = [{ event: 'large', properties: { blob: 'y'.repeat(2 * 1024 * 1024) } }];
    await expect(decodePayload(body(gzipSync(JSON.stringify(payload))), options, large)).resolves.toMatchObject({ value: payload });
    expect(onThread).toHaveBeenCalledTimes(1);
  });

  it('refuses a bomb whose trailer claims more than the cap with 413, without the thread', async () => {
    await expect(statusOf(decodePayload(body(BOMB), options, large))).resolves.toBe('413 payload_too_large');
    expect(onThread).not.toHaveBeenCalled();
  });

  it('answers 400, not 413, for garbage whose last bytes read as a huge size', async () => {
    const garbage = Buffer.concat([Buffer.from([0x1f, 0x8b, 0x08, 0x00]), Buffer.from('garbage after the magic')]);
    await expect(statusOf(decodePayload(body(garbage), options, large))).resolves.toBe('400 invalid_payload');
  });

  it('stops a bomb with a forged small size on the thread, at the cap', async () => {
    await expect(statusOf(decodePayload(body(forged(BOMB, 1024)), options, large))).resolves.toBe('413 payload_too_large');
    expect(onThread).toHaveBeenCalledTimes(1);
  });

  it('moves a gzip payload to the thread once it inflates past 1 MB, whatever its trailer claims', async () => {
    const text = JSON.stringify([{ event: 'lying', properties: { blob: 'l'.repeat(100_000) } }]);
    // 100 KB, under the 1 MB inline bound, but 1 KB claimed: not what it says (its length check then fails: 400).
    await expect(statusOf(decodePayload(body(forged(gzipSync(text), 1024)), options, large))).resolves.toBe('400 invalid_payload');
    expect(onThread).not.toHaveBeenCalled();
    const payload = [{ event: 'lying', properties: { blob: 'l'.repeat(1_500_000) } }];
    await expect(decodePayload(body(forged(gzipSync(JSON.stringify(payload)), 1024)), options, large)).rejects.toMatchObject({ status: 400 });
    expect(onThread).toHaveBeenCalledTimes(1);
  });

  it('still decodes a gzip payload of several members, whose trailer claims only the last one', async () => {
    const payload = [{ event: 'members', properties: { blob: 'm'.repeat(200_000) } }];
    const text = Buffer.from(JSON.stringify(payload));
    const members = Buffer.concat([gzipSync(text.subarray(0, 150_000)), gzipSync(text.subarray(150_000))]);
    await expect(decodePayload(body(members), options, large)).resolves.toMatchObject({ value: payload });
    expect(onThread).not.toHaveBeenCalled(); // past its trust (64 bytes out per byte in), counted, then kept: 200 KB, inline
  });

  it('does the same for deflate, which states no size', async () => {
    const bomb = deflateSync(Buffer.alloc(64 * 1024 * 1024, 0x20));
    const refused = decodePayload({ ...body(bomb), contentEncoding: 'deflate' }, options, large);
    await expect(statusOf(refused)).resolves.toBe('413 payload_too_large');
    expect(onThread).toHaveBeenCalledTimes(1);
  });

  it('decompresses lz64 on the thread (lz-string cannot stop midway), as inline, and refuses it past the cap', async () => {
    const payload = [{ event: 'lz', properties: { n: 1 } }];
    const lz64 = (text: string) => ({ ...body(Buffer.from(LZString.compressToBase64(text))), query: { compression: 'lz64' } });
    await expect(decodePayload(lz64(JSON.stringify(payload)), options, large)).resolves.toMatchObject({ value: payload });
    expect(onThread).toHaveBeenCalledTimes(1);
    await expect(decodePayload(lz64(JSON.stringify(payload)), { maxDecompressedBytes: CAP })).resolves.toMatchObject({ value: payload });
    const bomb = lz64(' '.repeat(200_000));
    await expect(statusOf(decodePayload(bomb, { maxDecompressedBytes: 64 * 1024 }, (located) => worker.decode(located, { maxDecompressedBytes: 64 * 1024 })))).resolves.toBe('413 payload_too_large');
  });

  it('without the thread, inflates inline up to the cap', async () => {
    await expect(statusOf(decodePayload(body(forged(BOMB, 1024)), { maxDecompressedBytes: CAP }))).resolves.toBe('413 payload_too_large');
    const payload = [{ event: 'large', properties: { blob: 'z'.repeat(2 * 1024 * 1024) } }];
    await expect(decodePayload(body(gzipSync(JSON.stringify(payload))), { maxDecompressedBytes: CAP })).resolves.toMatchObject({ value: payload });
  });
});

describe(parsedJsonTooDeep.name, () => {
  const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
  const tooDeep = (text: string, limit = 128) => parsedJsonTooDeep(text, JSON.parse(text), limit);

  it('finds nesting past the limit, and not at it', () => {
    expect(tooDeep(nested(128))).toBe(false);
    expect(tooDeep(nested(129))).toBe(true);
    expect(tooDeep(`{"a":[{"b":${nested(127)}}]}`)).toBe(true);
  });

  it('is not fooled by brackets inside strings, nor by many shallow ones', () => {
    expect(tooDeep(JSON.stringify({ text: '['.repeat(500) }))).toBe(false);
    expect(tooDeep(JSON.stringify(Array.from({ length: 500 }, () => ({ a: [] }))))).toBe(false);
  });

  it('answers a flat object of many keys by counting brackets', () => {
    const flat = JSON.stringify(Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, i])));
    expect(tooDeep(flat, 4)).toBe(false);
  });
});

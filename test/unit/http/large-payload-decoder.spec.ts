import { getPriority } from 'node:os';
import { gzipSync } from 'node:zlib';
import { ApiError } from '../../../src/common/errors/api-error';
import { LargePayloadDecoder } from '../../../src/common/http/large-payload-decoder';
import { decodeJsonBytes, type LargePayloadJob } from '../../../src/common/http/payload-decoding';
import { compiledFile } from '../../support/compiled';
import { threadNiceValues } from '../../support/thread-nice';

const job = (bytes: Buffer, more: Partial<LargePayloadJob> = {}): LargePayloadJob => ({ bytes, encoding: null, maxDecompressedBytes: 4 * 1024 * 1024, acceptEmptyList: false, ...more });
// Copied for each use: the decoder takes a buffer that is the whole of its memory without copying it.
const BOMB = gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20));

describe(LargePayloadDecoder.name, () => {
  let sut: LargePayloadDecoder;

  beforeAll(() => {
    sut = LargePayloadDecoder.create({ maxWaitingBytes: 256 * 1024, maxDecompressedBytes: 4 * 1024 * 1024 }, compiledFile('common/http/large-payload.worker.js'))!;
  });
  afterAll(() => sut.close());

  it('parses on its thread exactly as inline, with the events over the limit', async () => {
    const payload = { api_key: 'phc_x', batch: [{ event: 'small' }, { event: 'big', properties: { blob: 'x'.repeat(2000) } }, { event: 'quoted', properties: { q: '"'.repeat(600) } }] };
    const bytes = Buffer.from(JSON.stringify(payload));
    const decoded = await sut.decode(job(bytes, { measureItemsAbove: 1000 }));
    expect(decoded).toEqual(decodeJsonBytes(bytes, false, 1000));
    expect(decoded.value).toEqual(payload);
    // The quotes double when serialised: 600 characters are over 1,000 bytes of JSON.
    expect(decoded.oversizeItems).toEqual([1, 2]);
  });

  it('holds long property strings there when asked, measuring events with them first', async () => {
    const blob = 'z'.repeat(70_000);
    const payload = { api_key: 'phc_x', batch: [{ event: 'big', properties: { blob, $lib: 'web' } }, { event: 'small', properties: { s: 'x' } }] };
    const decoded = await sut.decode(job(Buffer.from(JSON.stringify(payload)), { measureItemsAbove: 50_000, holdStringsAbove: 64 * 1024 }));
    expect(decoded.oversizeItems).toEqual([0]);
    const held = decoded.held!;
    expect(decoded.value).toEqual({ ...payload, batch: [{ event: 'big', properties: { blob: `hb-held:${held.nonce}:0`, $lib: 'web' } }, payload.batch[1]] });
    expect(held.json.map((bytes) => Buffer.from(bytes).toString())).toEqual([JSON.stringify(blob)]);
  });

  it('takes a body that is the whole of its memory without copying it, and copies a slice of a larger one', async () => {
    const payload = [{ event: 'owned' }];
    const owned = Buffer.from(new TextEncoder().encode(JSON.stringify(payload)).buffer);
    await expect(sut.decode(job(owned))).resolves.toMatchObject({ value: payload });
    expect(owned.byteLength).toBe(0); // handed over
    const larger = Buffer.from(`${JSON.stringify(payload)}    `);
    const slice = larger.subarray(0, larger.length - 4);
    await expect(sut.decode(job(slice))).resolves.toMatchObject({ value: payload });
    expect(slice.toString()).toBe(JSON.stringify(payload)); // still readable here
  });

  it('inflates a gzip payload there, and stops a bomb at the cap with the same 413 as inline', async () => {
    const payload = [{ event: 'zipped', properties: { blob: 'y'.repeat(10_000) } }];
    await expect(sut.decode(job(gzipSync(JSON.stringify(payload)), { encoding: 'gzip' }))).resolves.toMatchObject({ value: payload });
    const refused = await sut.decode(job(Buffer.from(BOMB), { encoding: 'gzip' })).catch((error: unknown) => error);
    expect((refused as ApiError).status).toBe(413);
    expect((refused as ApiError).toBody()).toEqual({ type: 'invalid_request', code: 'payload_too_large', detail: 'Request body is larger than the limit of 4194304 bytes.', attr: null });
    const corrupt = await sut.decode(job(gzipSync('[1]').subarray(0, 12), { encoding: 'gzip' })).catch((error: unknown) => error);
    expect((corrupt as ApiError).toBody()).toMatchObject({ code: 'invalid_payload', detail: 'Malformed request data: invalid GZIP data' });
  });

  it('runs at the lowest CPU priority, and only that thread does', async () => {
    await sut.decode(job(Buffer.from('[{"event": "x"}]')));
    // Relative to the priority the suite runs at, which `nice` may have lowered already.
    const base = getPriority();
    const nice = threadNiceValues();
    expect(nice.filter((value) => value === 19)).toHaveLength(base === 19 ? nice.length : 1);
    expect(nice.filter((value) => value === base).length).toBeGreaterThan(1);
  });

  it('answers 503 past the bytes that may wait, always takes one payload, and takes more once the queue drains', async () => {
    const big = Buffer.alloc(300 * 1024, 0x20); // over the 256 KB that may wait, alone
    const first = sut.decode(job(Buffer.from(BOMB), { encoding: 'gzip' }));
    const second = sut.decode(job(Buffer.from(BOMB), { encoding: 'gzip' })); // 2 × 64 KB: within 256 KB
    const refused = await sut.decode(job(big)).catch((error: unknown) => error);
    expect((refused as ApiError).status).toBe(503);
    expect((refused as ApiError).headers).toEqual({ 'retry-after': '1' });
    expect((refused as ApiError).detail).toBe('Too many large payloads are waiting to be decoded. Please try again.');
    await expect(Promise.allSettled([first, second])).resolves.toEqual([expect.objectContaining({ status: 'rejected' }), expect.objectContaining({ status: 'rejected' })]);
    expect(sut.waitingBytes).toBe(0);
    await expect(sut.decode(job(big))).rejects.toMatchObject({ status: 400, code: 'no_data' }); // taken alone: decoded (blank)
  });

  it('answers a malformed payload with the same 400 as inline', async () => {
    const refused = await sut.decode(job(Buffer.from('{"batch": ['))).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).toBody()).toEqual({ type: 'validation_error', code: 'invalid_payload', detail: 'Malformed request data: Unexpected end of JSON input', attr: null });
    expect((refused as ApiError).status).toBe(400);
  });

  it('answers 503 for the requests of a thread that died, and starts a new one for the next', async () => {
    const pending = sut.decode(job(Buffer.from(JSON.stringify({ batch: Array.from({ length: 200_000 }, (_, i) => ({ event: `e${i}` })) }))));
    await (sut as unknown as { thread: { worker: { terminate(): Promise<number> } } }).thread.worker.terminate();
    await expect(pending).rejects.toMatchObject({ status: 503 });
    expect(sut.waitingBytes).toBe(0);
    await expect(sut.decode(job(Buffer.from('[{"event": "after"}]')))).resolves.toMatchObject({ value: [{ event: 'after' }] });
  });
});

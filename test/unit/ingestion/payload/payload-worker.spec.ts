import { gzipSync } from 'node:zlib';
import { ApiError } from '../../../../src/common/errors/api-error';
import { prepareCapture } from '../../../../src/modules/ingestion/capture-preparation';
import { partitionOf } from '../../../../src/modules/ingestion/partitioning';
import { decodeLocated, type LocatedPayload } from '../../../../src/modules/ingestion/payload/payload-decoding';
import { PayloadWorker } from '../../../../src/modules/ingestion/payload/payload-worker';
import { compiledFile } from '../../../support/compiled';

const OPTIONS = { maxDecompressedBytes: 4 * 1024 * 1024 };
const located = (bytes: Buffer, compression: LocatedPayload['compression'] = null): LocatedPayload => ({ bytes, compression });
// Copied for each use: the worker takes a buffer that is the whole of its memory without copying it.
const BOMB = gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20));
const CAPTURE = { path: '/batch/', query: {}, ip: '10.0.0.1', nowMs: Date.parse('2026-11-28T10:00:00Z'), partitions: 4 };

describe(PayloadWorker.name, () => {
  let sut: PayloadWorker;

  beforeAll(() => {
    sut = PayloadWorker.create({ maxWaitingBytes: 256 * 1024, maxDecompressedBytes: OPTIONS.maxDecompressedBytes }, compiledFile('modules/ingestion/payload/payload.worker.js'))!;
  });
  afterAll(() => sut.close());

  it('decodes on its thread exactly as inline', async () => {
    const payload = { api_key: 'phc_x', batch: [{ event: 'small' }, { event: 'quoted', properties: { q: '"'.repeat(600), nul: 'a\u0000b' } }] };
    const bytes = Buffer.from(JSON.stringify(payload));
    const decoded = await sut.decode(located(Buffer.from(bytes)), OPTIONS);
    expect(decoded).toEqual(await decodeLocated(located(bytes), OPTIONS));
    expect(decoded).toEqual({ value: payload, decodedLength: bytes.toString().length, needsCleaning: true });
  });

  it('prepares a capture payload there: the events, normalised and partitioned as the API would, as JSON; only what auth reads comes back as the value', async () => {
    const events = Array.from({ length: 12 }, (_, i) => ({ event: 'big', distinct_id: `user-${i % 2}`, timestamp: '2026-11-28T09:00:00Z', uuid: `0192f6a0-0000-7000-8000-0000000000${String(i).padStart(2, '0')}`, properties: { blob: 'x'.repeat(250_000), i } }));
    const payload = { api_key: 'phc_worker', personal_api_key: 'phx_maybe', batch: [...events, { event: '$performance_event', distinct_id: 'p' }, { distinct_id: 'no-name' }] };
    const bytes = Buffer.from(JSON.stringify(payload));
    const decoded = await sut.decode(located(bytes), OPTIONS, CAPTURE);
    expect(decoded.value).toEqual({ api_key: 'phc_worker', personal_api_key: 'phx_maybe' });
    const expected = prepareCapture(payload, { ...CAPTURE, decodedLength: decoded.decodedLength, needsCleaning: false, partitionOf: (id) => partitionOf('phc_worker', id, 4) });
    const capture = decoded.capture as Extract<typeof decoded.capture, { jobs: unknown }>;
    expect(capture.partitionToken).toBe('phc_worker');
    expect(capture.received).toBe(14);
    // The performance event leaves no warning; the nameless event does. Both are left out of the jobs.
    expect(capture.received - capture.jobs.reduce((sum, job) => sum + job.count, 0)).toBe(expected.droppedAt.size);
    expect(capture.dropped).toEqual(expected.dropped);
    // Each partition's events in order, cut into pieces of about 1 MB.
    const byPartition = new Map<number, unknown[]>();
    for (const job of capture.jobs) {
      const list = JSON.parse(Buffer.from(job.json).toString()) as unknown[];
      expect(list).toHaveLength(job.count);
      expect(job.json.byteLength).toBeLessThan(1.2 * 1024 * 1024);
      byPartition.set(job.partition, [...(byPartition.get(job.partition) ?? []), ...list]);
    }
    expect(byPartition).toEqual(expected.byPartition);
    expect(capture.jobs.length).toBeGreaterThan(expected.byPartition.size); // each person's 1.5 MB was cut
  });

  it('keeps capture’s own refusal of a payload for after authentication, with what auth reads', async () => {
    const payload = { token: 'phc_shape', batch: 'not a list' };
    const decoded = await sut.decode(located(Buffer.from(JSON.stringify(payload))), OPTIONS, CAPTURE);
    expect(decoded.value).toEqual({ api_key: 'phc_shape' });
    expect(decoded.capture).toEqual({
      partitionToken: 'phc_shape',
      refused: { status: 400, type: 'validation_error', code: 'invalid_payload', detail: 'Malformed request data: "batch" must be a list of events, got a string', attr: null, headers: {} },
    });
  });

  it('takes a body that is the whole of its memory without copying it, and copies a slice of a larger one', async () => {
    const payload = [{ event: 'owned' }];
    const owned = Buffer.from(new TextEncoder().encode(JSON.stringify(payload)).buffer);
    await expect(sut.decode(located(owned), OPTIONS)).resolves.toMatchObject({ value: payload });
    expect(owned.byteLength).toBe(0); // handed over
    const larger = Buffer.from(`${JSON.stringify(payload)}    `);
    const slice = larger.subarray(0, larger.length - 4);
    await expect(sut.decode(located(slice), OPTIONS)).resolves.toMatchObject({ value: payload });
    expect(slice.toString()).toBe(JSON.stringify(payload)); // still readable here
  });

  it('inflates a gzip payload there, and stops a bomb at the cap with the same 413 as inline', async () => {
    const payload = [{ event: 'zipped', properties: { blob: 'y'.repeat(10_000) } }];
    await expect(sut.decode(located(gzipSync(JSON.stringify(payload)), 'gzip'), OPTIONS)).resolves.toMatchObject({ value: payload });
    const refused = await sut.decode(located(Buffer.from(BOMB), 'gzip'), OPTIONS).catch((error: unknown) => error);
    expect((refused as ApiError).status).toBe(413);
    expect((refused as ApiError).toBody()).toEqual({ type: 'invalid_request', code: 'payload_too_large', detail: 'Request body is larger than the limit of 4194304 bytes.', attr: null });
    const corrupt = await sut.decode(located(gzipSync('[1]').subarray(0, 12), 'gzip'), OPTIONS).catch((error: unknown) => error);
    expect((corrupt as ApiError).toBody()).toMatchObject({ code: 'invalid_payload', detail: 'Malformed request data: invalid GZIP data' });
  });

  it('answers 503 past the bytes that may wait, always takes one payload, and takes more once the queue drains', async () => {
    const big = Buffer.alloc(300 * 1024, 0x20); // over the 256 KB that may wait, alone
    const first = sut.decode(located(Buffer.from(BOMB), 'gzip'), OPTIONS);
    const second = sut.decode(located(Buffer.from(BOMB), 'gzip'), OPTIONS); // 2 × 64 KB: within 256 KB
    const refused = await sut.decode(located(big), OPTIONS).catch((error: unknown) => error);
    expect((refused as ApiError).status).toBe(503);
    expect((refused as ApiError).headers).toEqual({ 'retry-after': '1' });
    expect((refused as ApiError).detail).toBe('Too many large payloads are waiting to be decoded. Please try again.');
    await expect(Promise.allSettled([first, second])).resolves.toEqual([expect.objectContaining({ status: 'rejected' }), expect.objectContaining({ status: 'rejected' })]);
    expect(sut.waitingBytes).toBe(0);
    await expect(sut.decode(located(big), OPTIONS)).rejects.toMatchObject({ status: 400, code: 'no_data' }); // taken alone: decoded (blank)
  });

  it('answers a malformed payload with the same 400 as inline', async () => {
    const refused = await sut.decode(located(Buffer.from('{"batch": [')), OPTIONS).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).toBody()).toEqual({ type: 'validation_error', code: 'invalid_payload', detail: 'Malformed request data: Unexpected end of JSON input', attr: null });
    expect((refused as ApiError).status).toBe(400);
  });

  it('answers 503 for the requests of a thread that died, and starts a new one for the next', async () => {
    const pending = sut.decode(located(Buffer.from(JSON.stringify({ batch: Array.from({ length: 200_000 }, (_, i) => ({ event: `e${i}` })) }))), OPTIONS);
    await (sut as unknown as { thread: { worker: { terminate(): Promise<number> } } }).thread.worker.terminate();
    await expect(pending).rejects.toMatchObject({ status: 503 });
    expect(sut.waitingBytes).toBe(0);
    await expect(sut.decode(located(Buffer.from('[{"event": "after"}]')), OPTIONS)).resolves.toMatchObject({ value: [{ event: 'after' }] });
  });
});

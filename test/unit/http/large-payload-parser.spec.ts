import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ApiError } from '../../../src/common/errors/api-error';
import { LargePayloadParser } from '../../../src/common/http/large-payload-parser';
import { decodeJsonBytes } from '../../../src/common/http/payload-decoding';

// The thread runs compiled JavaScript: `npm test` builds dist/ before the suite.
const SCRIPT = join(__dirname, '..', '..', '..', 'dist', 'common', 'http', 'json-parse.worker.js');

describe(LargePayloadParser.name, () => {
  let sut: LargePayloadParser;

  beforeAll(() => {
    expect(existsSync(SCRIPT)).toBe(true); // run `npm run build` first
    sut = LargePayloadParser.create(SCRIPT)!;
  });
  afterAll(() => sut.close());

  it('parses on its thread exactly as inline, with the events over the limit', async () => {
    const payload = { api_key: 'phc_x', batch: [{ event: 'small' }, { event: 'big', properties: { blob: 'x'.repeat(2000) } }, { event: 'quoted', properties: { q: '"'.repeat(600) } }] };
    const bytes = Buffer.from(JSON.stringify(payload));
    const decoded = await sut.parse(bytes, false, 1000);
    expect(decoded).toEqual(decodeJsonBytes(bytes, false, 1000));
    expect(decoded.value).toEqual(payload);
    // The quotes double when serialised: 600 characters are over 1,000 bytes of JSON.
    expect(decoded.oversizeItems).toEqual([1, 2]);
  });

  it('answers a malformed payload with the same 400 as inline', async () => {
    const refused = await sut.parse(Buffer.from('{"batch": ['), false).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).toBody()).toEqual({ type: 'validation_error', code: 'invalid_payload', detail: 'Malformed request data: Unexpected end of JSON input', attr: null });
    expect((refused as ApiError).status).toBe(400);
  });

  it('answers 503 for the requests of a thread that died, and starts a new one for the next', async () => {
    const pending = sut.parse(Buffer.from(JSON.stringify({ batch: Array.from({ length: 200_000 }, (_, i) => ({ event: `e${i}` })) })), false);
    await (sut as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
    await expect(pending).rejects.toMatchObject({ status: 503 });
    await expect(sut.parse(Buffer.from('[{"event": "after"}]'), false)).resolves.toMatchObject({ value: [{ event: 'after' }] });
  });
});

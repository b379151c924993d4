import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { ApiError } from '../../../src/common/errors/api-error';
import { ALWAYS_ALLOWED_BYTES, inflateBounded, InflateBudget } from '../../../src/common/http/bounded-inflate';

const invalid = () => new ApiError(400, 'validation_error', 'invalid_payload', 'Malformed request data: invalid GZIP data');
const statusOf = (promise: Promise<unknown>) => promise.then(() => 200, (error: ApiError) => error.status);

describe(inflateBounded.name, () => {
  it('inflates within the limit and holds the output against the budget until given back', async () => {
    const budget = new InflateBudget(64 * 1024 * 1024);
    const text = JSON.stringify({ batch: Array.from({ length: 2000 }, (_, i) => ({ event: `e${i}` })) });
    const { output, held } = await inflateBounded('gzip', gzipSync(text), 1e8, budget, invalid);
    expect(output.toString()).toBe(text);
    expect(held).toBe(output.length);
    expect(budget.used).toBe(held);
    budget.give(held);
    expect(budget.used).toBe(0);
  });

  it('stops a bomb at the per-request limit with 413 and gives its bytes back', async () => {
    const budget = new InflateBudget(1e9);
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20));
    await expect(statusOf(inflateBounded('gzip', bomb, 4 * 1024 * 1024, budget, invalid))).resolves.toBe(413);
    expect(budget.used).toBe(0);
  });

  it('refuses with 503 what would pass the shared budget, while small payloads always pass', async () => {
    const budget = new InflateBudget(8 * 1024 * 1024);
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20));
    const statuses = await Promise.all(Array.from({ length: 8 }, () => statusOf(inflateBounded('gzip', bomb, 1e9, budget, invalid))));
    expect(statuses.every((status) => status === 503)).toBe(true);
    expect(budget.used).toBe(0);
    // Even with the budget spent by someone else, a payload under ALWAYS_ALLOWED_BYTES inflates.
    budget.take(8 * 1024 * 1024, ALWAYS_ALLOWED_BYTES + 1);
    const small = await inflateBounded('gzip', gzipSync('{"event":"x"}'), 1e9, budget, invalid);
    expect(small.output.toString()).toBe('{"event":"x"}');
  });

  it.each([
    ['deflate (zlib-wrapped)', 'deflate', deflateSync],
    ['deflate (raw)', 'deflate', deflateRawSync],
    ['br', 'br', brotliCompressSync],
  ] as const)('inflates %s too', async (_label, encoding, compress) => {
    const { output } = await inflateBounded(encoding, compress(Buffer.from('{"batch":[]}')), 1e6, undefined, invalid);
    expect(output.toString()).toBe('{"batch":[]}');
  });

  it('answers invalid gzip with the caller’s error', async () => {
    await expect(statusOf(inflateBounded('gzip', Buffer.from([0x1f, 0x8b, 1, 2, 3]), 1e6, undefined, invalid))).resolves.toBe(400);
  });
});

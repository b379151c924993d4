import { join } from 'node:path';
import { holdLongStrings } from '../../../src/common/json/held-strings';
import { JobEncodingThread } from '../../../src/queues/job-encoding-thread';
import { compiledFile } from '../../support/compiled';

// The compiled thread script, as the API runs it (a stale build fails the file).
const SCRIPT = compiledFile('queues/job-encoding.worker.js');

describe(JobEncodingThread.name, () => {
  let sut: JobEncodingThread;

  beforeAll(() => {
    sut = JobEncodingThread.create(SCRIPT)!;
  });
  afterAll(() => sut.close());

  it('gives the UTF-8 bytes of exactly what JSON.stringify writes, characters outside Latin-1 and escapes included', async () => {
    const job = { segments: [{ events: [{ event: 'x', properties: { blob: 'é€😀'.repeat(1000), quote: '"\\\n', n: 1.5, none: null } }] }] };
    const encoded = await sut.encode(job);
    expect(encoded.equals(Buffer.from(JSON.stringify(job)))).toBe(true);
  });

  it('splices held strings into the job where their markers are, handed over rather than copied', async () => {
    const blob = 'é"\\😀'.repeat(30_000);
    const events = [{ event: 'big', properties: { blob, small: 'x' } }];
    const expected = JSON.stringify({ segments: [{ events }] });
    const job = { segments: [{ events: structuredClone(events) }] };
    const held = holdLongStrings(job.segments[0].events, 64 * 1024)!;
    const encoded = await sut.encode(job, held);
    expect(encoded.toString('utf8')).toBe(expected);
    expect(held.json[0].byteLength).toBe(0); // transferred to the thread: no copy stays on this side
  });

  it('answers each job with its own bytes, in order', async () => {
    const encoded = await Promise.all([1, 2, 3].map((n) => sut.encode({ n })));
    expect(encoded.map((data) => data.toString())).toEqual(['{"n":1}', '{"n":2}', '{"n":3}']);
  });

  it('rejects what JSON cannot write, and goes on', async () => {
    await expect(sut.encode({ n: BigInt(1) })).rejects.toThrow(/job encoding failed: .*BigInt/);
    await expect(sut.encode({ ok: true }).then((data) => data.toString())).resolves.toBe('{"ok":true}');
  });

  it('is absent where its script is (sources run without a build)', () => {
    expect(JobEncodingThread.create(join(__dirname, 'no-such-script.js'))).toBeNull();
  });
});

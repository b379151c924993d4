import type { NormalizedEvent } from '../../src/modules/events/normalized-event';
import type { IngestionJobData, IngestionSegment } from '../../src/modules/ingestion/ingestion.types';
import fc from 'fast-check';
import { chunkJobBySize, eventCount, joinJobs, splitJobByEvent } from '../../src/modules/ingestion/job-splitting';

const event = (name: string): NormalizedEvent => ({ uuid: `uuid-${name}`, event: name, distinct_id: 'd', properties: {}, timestamp: '2026-01-01T00:00:00.000Z', elements_chain: '' });
const segment = (projectId: number, names: string[], warnings: IngestionSegment['warnings'] = []): IngestionSegment => ({
  projectId,
  token: `phc_${projectId}`,
  receivedAt: '2026-01-01T00:00:00.000Z',
  events: names.map(event),
  warnings,
});
const names = (data: IngestionJobData) => data.segments.map((s) => [s.projectId, s.events.map((e) => e.event), s.warnings.length]);

describe('splitJobByEvent', () => {
  const warning = { type: 'event_too_big' as const, details: {} };
  const job: IngestionJobData = { segments: [segment(1, ['a', 'b'], [warning]), segment(2, [], [warning]), segment(1, ['c'])] };

  it('makes one job per event in job order, each with its segment, and the capture warnings once', () => {
    expect(splitJobByEvent(job).map(names)).toEqual([[[1, ['a'], 1]], [[1, ['b'], 0]], [[2, [], 1]], [[1, ['c'], 0]]]);
  });

  it('joins pieces into one job with their events and warnings in order', () => {
    const joined = joinJobs(splitJobByEvent(job).slice(1));
    expect(names(joined)).toEqual([[1, ['b'], 0], [2, [], 1], [1, ['c'], 0]]);
    expect([eventCount(joined), eventCount(job)]).toEqual([2, 3]);
  });
});

describe('chunkJobBySize', () => {
  const big = (name: string, bytes: number): NormalizedEvent => ({ ...event(name), properties: { blob: 'x'.repeat(bytes) } });
  const withEvents = (...events: NormalizedEvent[]): IngestionJobData => ({ segments: [{ ...segment(1, []), events }] });

  it('keeps a small job whole, as the same object', () => {
    const job = withEvents(event('a'), event('b'));
    expect(chunkJobBySize(job, 1024)).toEqual([job]);
    expect(chunkJobBySize(job, 1024)[0]).toBe(job);
  });

  it('cuts a large job into pieces of at most the size, a bigger event alone, in order', () => {
    const job = withEvents(big('a', 300), big('b', 300), big('c', 1500), event('d'), big('e', 300));
    const chunks = chunkJobBySize(job, 1200);
    expect(chunks.map((c) => c.segments.flatMap((s) => s.events.map((e) => e.event)))).toEqual([['a', 'b'], ['c'], ['d', 'e']]);
    for (const chunk of chunks.filter((c) => eventCount(c) > 1)) expect(Buffer.byteLength(JSON.stringify(chunk))).toBeLessThanOrEqual(1200);
  });

  it('loses, repeats and reorders nothing, and records each warning once, for any job', () => {
    const warning = { type: 'event_too_big' as const, details: {} };
    const jobs = fc.array(
      fc.record({ project: fc.integer({ min: 1, max: 3 }), sizes: fc.array(fc.integer({ min: 0, max: 600 }), { maxLength: 6 }), warned: fc.boolean() }),
      { minLength: 1, maxLength: 5 },
    );
    fc.assert(
      fc.property(jobs, fc.integer({ min: 50, max: 2000 }), (spec, maxBytes) => {
        let n = 0;
        const job: IngestionJobData = {
          segments: spec.map((s) => ({ ...segment(s.project, [], s.warned ? [warning] : []), events: s.sizes.map((size) => big(`e${n++}`, size)) })),
        };
        const chunks = chunkJobBySize(job, maxBytes);
        const flat = (data: IngestionJobData) => data.segments.flatMap((s) => s.events.map((e) => `${s.projectId}:${e.event}`));
        expect(chunks.flatMap(flat)).toEqual(flat(job));
        const warnings = (data: IngestionJobData) => data.segments.reduce((sum, s) => sum + s.warnings.length, 0);
        expect(chunks.reduce((sum, c) => sum + warnings(c), 0)).toBe(warnings(job));
      }),
    );
  });
});

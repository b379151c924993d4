import type { IngestionJobData, IngestionSegment, NormalizedEvent } from '../../src/modules/ingestion/ingestion.types';
import { eventCount, joinJobs, splitJobByEvent } from '../../src/modules/ingestion/job-splitting';

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

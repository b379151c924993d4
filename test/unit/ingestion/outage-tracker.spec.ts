import { OutageTracker } from '../../../src/modules/ingestion/outage-tracker';

describe(OutageTracker.name, () => {
  it('reports the start once, then the end with the refusals counted and the duration', () => {
    const sut = new OutageTracker();
    expect(sut.succeeded(0)).toBeNull();
    expect(sut.failed(1_000)).toBe(true);
    expect(sut.failed(1_500)).toBe(false);
    expect(sut.failed(2_000)).toBe(false);
    expect(sut.succeeded(4_000)).toEqual({ failures: 3, durationMs: 3_000 });
    expect(sut.succeeded(4_100)).toBeNull();
  });

  it('starts counting afresh for the next outage', () => {
    const sut = new OutageTracker();
    sut.failed(0);
    sut.succeeded(10);
    expect(sut.failed(20)).toBe(true);
    expect(sut.succeeded(25)).toEqual({ failures: 1, durationMs: 5 });
  });
});

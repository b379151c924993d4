import { BUSY_BESIDE_CORES, coresBeside, CpuReading, HOLD_MS, lasted, readThreadsBesideWork, threadsBeside, WorkBeside } from '../../../../src/modules/analytics/engine/work-beside';

describe('reads beside other work', () => {
  const reading = (machineMs: number, processMs: number, at: number): CpuReading => ({ machineMs, processMs, at });

  it('counts the cores the machine spent outside this process between two readings', () => {
    // 1.5 s of the machine's CPU over one second, 1.2 s of it this process's own: 0.3 of a core elsewhere.
    expect(coresBeside(reading(10_000, 4_000, 100), reading(11_500, 5_200, 1_100))).toBeCloseTo(0.3, 10);
  });

  it('never counts less than nothing, nor over no time', () => {
    // The process's own clock runs a little ahead of the machine's tick-counted one.
    expect(coresBeside(reading(10_000, 4_000, 100), reading(10_990, 5_000, 1_100))).toBe(0);
    expect(coresBeside(reading(10_000, 4_000, 100), reading(12_000, 4_000, 100))).toBe(0);
  });

  it('leaves one core free beside other work, and never takes more threads than a read may', () => {
    expect(threadsBeside(2, 2)).toBe(1);
    expect(threadsBeside(8, 4)).toBe(3);
    expect(threadsBeside(4, 1)).toBe(1);
  });

  it('counts only work that lasted two samples, not a moment of a daemon', () => {
    expect(lasted(BUSY_BESIDE_CORES, BUSY_BESIDE_CORES)).toBe(true);
    expect(lasted(0.2, 0.3)).toBe(true);
    expect(lasted(0.01, 0.15)).toBe(false);
    expect(lasted(0.15, BUSY_BESIDE_CORES - 0.001)).toBe(false);
  });

  it('leaves a core from the second busy sample in a row until the hold after the last one, then takes every thread again', () => {
    // Half-second samples; this process spends 0.4 s of each, other work 0.1 s when busy (0.2 of a core).
    let at = 0;
    let machine = 0;
    let own = 0;
    const next = (besideMs: number) => {
      [at, machine, own] = [at + 500, machine + 400 + besideMs, own + 400];
      return reading(machine, own, at);
    };
    const sut = new WorkBeside(reading(0, 0, 0), 2, 2);
    const threadsAfter = (besideMs: number[]) => besideMs.map((ms) => {
      sut.sample(next(ms));
      return sut.threadsAt(at);
    });
    expect(threadsAfter([100, 0, 100, 100, 100])).toEqual([2, 2, 2, 1, 1]);
    const lastBusy = at;
    expect(threadsAfter([0, 0])).toEqual([1, 1]);
    expect([sut.threadsAt(lastBusy + HOLD_MS - 1), sut.threadsAt(lastBusy + HOLD_MS)]).toEqual([1, 2]);
  });

  it('leaves reads as they are where they may not use every core', () => {
    const threads = readThreadsBesideWork(2, 8);
    expect(threads.next()).toBe(2);
    threads.close();
  });

  it('takes every thread until a first sample says otherwise', () => {
    const threads = readThreadsBesideWork(2, 2);
    expect(threads.next()).toBe(2);
    threads.close();
  });
});

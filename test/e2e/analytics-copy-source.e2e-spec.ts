import { CopySource } from '../../src/modules/analytics/copy/copy-source';
import { runId, TEST_POSTGRES_URL } from '../support/test-env';

/** The copy's PostgreSQL side on a real server: what its lock keeps apart. */
describe(CopySource.name, () => {
  const sut = new CopySource({ connectionString: TEST_POSTGRES_URL }, `hogbase copy source test ${runId()}`, 5_000);

  afterAll(() => sut.close());

  it('runs the work of two callers in this process one after the other, though the advisory lock is re-entrant', async () => {
    const steps: string[] = [];
    const work = (name: string) => async () => {
      steps.push(`${name} starts`);
      await sut.rows('SELECT pg_sleep(0.05)');
      steps.push(`${name} ends`);
      return name;
    };
    expect(await Promise.all([sut.locked(work('a')), sut.locked(work('b'))])).toEqual(['a', 'b']);
    expect(steps).toEqual(['a starts', 'a ends', 'b starts', 'b ends']);
  });

  it('lets the next caller in after a work that failed', async () => {
    const failing = sut.locked(async () => {
      throw new Error('planted');
    });
    const next = sut.locked(async () => 'ran');
    await expect(failing).rejects.toThrow('planted');
    expect(await next).toBe('ran');
  });
});

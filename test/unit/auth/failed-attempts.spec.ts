import { FailedAttempts } from '../../../src/common/auth/failed-attempts';

describe(FailedAttempts.name, () => {
  let clock = 0;
  const sut = () => new FailedAttempts(3, 60_000, () => clock);
  beforeEach(() => (clock = 1_000_000));

  it('lets an address try until it has failed the limit, then refuses it until its window ends', () => {
    const attempts = sut();
    for (let i = 0; i < 3; i++) {
      expect(attempts.retryAfterSeconds('10.0.0.1')).toBeNull();
      attempts.recordFailure('10.0.0.1');
    }
    expect(attempts.retryAfterSeconds('10.0.0.1')).toBe(60);
    clock += 59_500;
    expect(attempts.retryAfterSeconds('10.0.0.1')).toBe(1);
    clock += 500;
    expect(attempts.retryAfterSeconds('10.0.0.1')).toBeNull();
  });

  it('counts each address on its own', () => {
    const attempts = sut();
    for (let i = 0; i < 3; i++) attempts.recordFailure('10.0.0.1');
    expect(attempts.retryAfterSeconds('10.0.0.2')).toBeNull();
  });

  it('starts a new window once the old one ended', () => {
    const attempts = sut();
    attempts.recordFailure('10.0.0.1');
    attempts.recordFailure('10.0.0.1');
    clock += 60_000;
    attempts.recordFailure('10.0.0.1');
    attempts.recordFailure('10.0.0.1');
    expect(attempts.retryAfterSeconds('10.0.0.1')).toBeNull();
  });

  it('never refuses with a limit of 0', () => {
    const attempts = new FailedAttempts(0, 60_000, () => clock);
    for (let i = 0; i < 100; i++) attempts.recordFailure('10.0.0.1');
    expect(attempts.retryAfterSeconds('10.0.0.1')).toBeNull();
  });
});

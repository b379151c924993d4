import type { ChdbSession } from './chdb-handle';

interface Lane {
  session: ChdbSession;
  /** Tasks running or queued on this session. */
  load: number;
  tail: Promise<void>;
}

/**
 * Sessions that reads run on, one task per session at a time (chdb allows one open stream per session, and
 * a session runs its queries one after another anyway); a task goes to the least loaded one. Sessions on
 * one path share the engine and its data, and run in parallel on their own threads.
 */
export class ChdbLanes {
  private readonly lanes: Lane[];

  constructor(sessions: ChdbSession[]) {
    this.lanes = sessions.map((session) => ({ session, load: 0, tail: Promise.resolve() }));
  }

  run<T>(task: (session: ChdbSession) => Promise<T>): Promise<T> {
    const lane = this.lanes.reduce((best, next) => (next.load < best.load ? next : best));
    lane.load++;
    const result = lane.tail.then(() => task(lane.session));
    lane.tail = result.then(
      () => undefined,
      () => undefined,
    );
    void lane.tail.then(() => lane.load--);
    return result;
  }

  sessions(): ChdbSession[] {
    return this.lanes.map((lane) => lane.session);
  }
}

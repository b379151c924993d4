/**
 * Runs tasks one at a time, in the order given, each started from an event-loop turn of its own (`setImmediate`).
 * For work whose synchronous part is long (serialising and writing a 1 MB job): started together, such tasks would
 * run back to back in one turn, through their microtasks, and hold every request waiting behind them; started one
 * turn apart, the requests that arrived meanwhile are served between them.
 */
export class TurnTaking {
  private last: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const turn = this.last.then(() => new Promise<void>((resolve) => setImmediate(resolve))).then(task);
    // The next task waits for this one to settle, whether it succeeded or not.
    this.last = turn.catch(() => undefined);
    return turn;
  }
}

import cluster, { Worker } from 'node:cluster';
import type { AnalyticsEngine } from './analytics-engine';
import { answerRequest, EngineReply, isEngineRequest } from './ipc-messages';

/**
 * The primary's side of {@link IpcEngine}: answers every child's engine requests from the engine this
 * process owns. Children's requests run concurrently, as a single process's would.
 */
export class IpcEngineHost {
  private readonly answering = new Set<Promise<void>>();
  private readonly listener = (worker: Worker, message: unknown) => this.handle(message, (reply) => void (worker.isConnected() && worker.send(reply)));

  constructor(readonly engine: AnalyticsEngine) {}

  /** Serves the children of node:cluster, those forked already and later. */
  serveClusterChildren(): this {
    cluster.on('message', this.listener);
    return this;
  }

  /** Answers a message if it is an engine request; the channel carries other messages too (metrics, readiness). */
  handle(message: unknown, reply: (answer: EngineReply) => void): void {
    if (isEngineRequest(message)) this.track(answerRequest(this.engine, message).then(reply));
  }

  /** After the children have drained: stops serving, lets the last answers go, closes the engine. */
  async close(): Promise<void> {
    cluster.off('message', this.listener);
    await Promise.allSettled([...this.answering]);
    await this.engine.close();
  }

  private track(answer: Promise<void>): void {
    this.answering.add(answer);
    const forget = () => this.answering.delete(answer);
    answer.then(forget, forget);
  }
}

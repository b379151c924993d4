import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { MetricsJson } from '../../metrics/metrics.service';
import { ApiError } from '../../../common/errors/api-error';

/** A request handed to the thread: what the client sent, with the body read whole. */
export interface ForwardedRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: Uint8Array | null;
  /** The peer's address, so the thread resolves the client's address (trusted proxies, throttles) as this thread does. */
  remoteAddress?: string;
}

export interface ThreadReply {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: Uint8Array;
}

/** An error as the thread's reply: the contract's body and headers, in a buffer of its own (safe to transfer). */
export function errorReply(error: ApiError): ThreadReply {
  return { status: error.status, headers: { 'content-type': 'application/json; charset=utf-8', ...error.headers }, body: new Uint8Array(Buffer.from(JSON.stringify(error.toBody()))) };
}

/** Messages from the thread (analytics-thread.entry.ts). */
export type FromThread =
  | { type: 'ready' }
  | { type: 'reply'; id: number; reply: ThreadReply }
  | { type: 'metrics'; id: number; metrics: MetricsJson };

/** Messages to the thread. */
export type ToThread = { type: 'request'; id: number; request: ForwardedRequest } | { type: 'metrics'; id: number } | { type: 'close' };

/** What the thread receives at its start. */
export interface ThreadStart {
  databaseUrl: string;
}

/** How long a closing thread may take to close its connections before it is stopped. */
const CLOSE_TIMEOUT_MS = 5_000;
/** How long a thread may take to start (it connects to the database) before it is stopped as failed. */
const START_TIMEOUT_MS = 60_000;
/** After a thread failed to start, how long the HTTP thread answers insights itself before the next try. */
const RETRY_START_AFTER_MS = 60_000;

type Waiter = (message: Extract<FromThread, { id: number }> | null) => void;

/**
 * Insights run on a thread of their own. A funnel over millions of events is seconds of computation;
 * on the thread that serves HTTP it would hold every capture and flag evaluation behind it. The thread
 * runs the same application (analytics-thread.entry.ts), without a listening socket: the HTTP thread
 * forwards each analytics request to it (analytics-forwarding.ts) and writes back its reply.
 *
 * The thread starts on the first analytics request (a process never asked for one never pays for it),
 * which waits for it. A thread that dies while serving is started again by the next request. While one
 * cannot start (the database is down, say), the HTTP thread answers insights itself, from PostgreSQL (the
 * column copies are the analytics thread's), and a new start is tried a minute later.
 */
export class AnalyticsThread {
  private worker: Worker | null = null;
  private state: 'idle' | 'starting' | 'ready' | 'closing' = 'idle';
  private started: Promise<void> = Promise.resolve();
  private settleStart: () => void = () => undefined;
  /** No start is tried before this instant (ms): set when one failed. */
  private notBefore = 0;
  private nextId = 0;
  private readonly pending = new Map<number, Waiter>();

  private constructor(
    private readonly script: string,
    private readonly start: ThreadStart,
    private readonly logger: Logger,
  ) {}

  /** The thread (not started yet); null where the compiled thread script is absent (sources run without a build, as in tests). */
  static create(start: ThreadStart, logger: Logger, script = join(__dirname, 'analytics-thread.entry.js')): AnalyticsThread | null {
    return existsSync(script) ? new AnalyticsThread(script, start, logger) : null;
  }

  /** Whether the thread answers requests, once it has started (the first call starts it). */
  async available(): Promise<boolean> {
    if (this.state === 'idle' && Date.now() >= this.notBefore) this.spawn();
    await this.started;
    return this.state === 'ready';
  }

  forward(request: ForwardedRequest): Promise<ThreadReply> {
    return this.ask((id) => ({ type: 'request', id, request })).then((message) => {
      if (message?.type === 'reply') return message.reply;
      return errorReply(ApiError.unavailable('The analytics thread stopped while it computed this request. Please try again.'));
    });
  }

  /** The thread's own metrics (its insight reads: `analytics_*`); none while it is not serving. */
  async metrics(): Promise<MetricsJson> {
    if (this.state !== 'ready') return [];
    const message = await this.ask((id) => ({ type: 'metrics', id }));
    return message?.type === 'metrics' ? message.metrics : [];
  }

  async close(): Promise<void> {
    this.state = 'closing';
    this.settleStart();
    const worker = this.worker;
    if (!worker) return;
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    worker.postMessage({ type: 'close' } satisfies ToThread);
    const timer = setTimeout(() => void worker.terminate(), CLOSE_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  }

  private ask(message: (id: number) => ToThread): Promise<Extract<FromThread, { id: number }> | null> {
    const worker = this.worker;
    if (!worker || this.state !== 'ready') return Promise.resolve(null);
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      worker.postMessage(message(id));
    });
  }

  private spawn(): void {
    const worker = new Worker(this.script, { workerData: this.start });
    this.worker = worker;
    this.state = 'starting';
    this.started = new Promise((resolve) => (this.settleStart = resolve));
    const startTimer = setTimeout(() => void worker.terminate(), START_TIMEOUT_MS);
    worker.on('message', (message: FromThread) => {
      if (message.type === 'ready') {
        clearTimeout(startTimer);
        if (this.state !== 'starting') return;
        this.state = 'ready';
        this.settleStart();
        this.logger.info('analytics thread started: insights are computed beside the HTTP thread');
        return;
      }
      const waiter = this.pending.get(message.id);
      this.pending.delete(message.id);
      waiter?.(message);
    });
    // An uncaught error in the thread is followed by 'exit'; without a listener it would be thrown here.
    worker.on('error', (error) => this.logger.error({ err: error }, 'analytics thread failed'));
    worker.on('exit', (code) => {
      clearTimeout(startTimer);
      const was = this.state;
      this.worker = null;
      for (const waiter of this.pending.values()) waiter(null);
      this.pending.clear();
      if (was === 'closing') return;
      this.state = 'idle';
      if (was === 'starting') {
        this.notBefore = Date.now() + RETRY_START_AFTER_MS;
        this.logger.error({ code }, `analytics thread could not start; insights are answered by the HTTP thread from PostgreSQL, and a new start is tried in ${RETRY_START_AFTER_MS / 1000} s`);
      } else {
        this.logger.warn({ code }, 'analytics thread exited; the next insight starts a new one');
      }
      this.settleStart();
    });
  }
}

import { Worker, type ResourceLimits, type Transferable } from 'node:worker_threads';

/**
 * Requests to a worker thread, each answered by one message carrying its `id`. The thread starts with the first
 * request and never keeps the process alive; when it dies (a crash, out of memory) every request it held is
 * rejected with `lost()`, and the next request starts another.
 */
export class ThreadRequests<Reply extends { id: number }> {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, { resolve: (reply: Reply) => void; reject: (error: unknown) => void }>();
  private nextId = 0;

  constructor(
    private readonly script: string,
    private readonly lost: () => unknown,
    private readonly resourceLimits?: ResourceLimits,
  ) {}

  /** Sends `message` with its id; resolves with the thread's reply. */
  send(message: object, transfer: readonly Transferable[] = []): Promise<Reply> {
    const worker = this.worker ?? this.start();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ ...message, id }, transfer);
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    await worker?.terminate();
  }

  private start(): Worker {
    const worker = new Worker(this.script, { resourceLimits: this.resourceLimits });
    worker.unref();
    worker.on('message', (reply: Reply) => {
      const waiter = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      waiter?.resolve(reply);
    });
    // An uncaught error in the thread is followed by 'exit', which answers its requests; without a listener the
    // error would be thrown in this thread and take the process down.
    worker.on('error', () => undefined);
    worker.on('exit', () => {
      if (this.worker === worker) this.worker = null;
      for (const { reject } of this.pending.values()) reject(this.lost());
      this.pending.clear();
    });
    this.worker = worker;
    return worker;
  }
}

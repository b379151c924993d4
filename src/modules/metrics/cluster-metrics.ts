import cluster, { Worker } from 'node:cluster';
import { AggregatorRegistry, Registry } from 'prom-client';

/** A registry's metrics as prom-client serialises them: what children send their primary. */
export type MetricsJson = Awaited<ReturnType<Registry['getMetricsAsJSON']>>;


/**
 * /metrics across the processes of one API cluster (API_PROCESSES > 1). A scrape lands on any child;
 * that child asks the primary, the primary collects every ready child's registry as JSON and sums
 * them with prom-client's `AggregatorRegistry.aggregate` (histograms and counters add up; metrics
 * that declare another aggregator, such as the queue depth gauge, use it), and the text goes back to
 * the child that was asked. No child is left out silently: one that does not answer fails the scrape.
 */
const SCRAPE = 'hogbase:metrics-scrape';
const SCRAPED = 'hogbase:metrics-scraped';
const COLLECT = 'hogbase:metrics-collect';
const COLLECTED = 'hogbase:metrics-collected';
/** A child tells the primary it has started (and can answer COLLECT) with this message. */
export const CHILD_READY = 'hogbase:ready';

const TIMEOUT_MS = 3000;

interface Message {
  type?: string;
  id?: number;
  text?: string;
  error?: string;
  metrics?: MetricsJson;
}

let nextId = 0;

/** In a child: answer the primary's collections with this process's metrics, and scrape the whole cluster through it. */
export class ChildMetrics {
  private readonly pending = new Map<number, { resolve: (text: string) => void; reject: (error: Error) => void }>();

  constructor(private readonly collect: () => Promise<MetricsJson>) {
    process.on('message', (message: Message) => this.onMessage(message));
  }

  scrape(): Promise<string> {
    const id = nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.settle(id, { error: 'the primary process did not answer' }), TIMEOUT_MS * 2);
      this.pending.set(id, {
        resolve: (text) => (clearTimeout(timer), resolve(text)),
        reject: (error) => (clearTimeout(timer), reject(error)),
      });
      process.send?.({ type: SCRAPE, id });
    });
  }

  private onMessage(message: Message): void {
    if (message?.type === COLLECT) {
      this.collect().then(
        (metrics) => process.send?.({ type: COLLECTED, id: message.id, metrics }),
        (error: Error) => process.send?.({ type: COLLECTED, id: message.id, error: error.message }),
      );
    } else if (message?.type === SCRAPED && typeof message.id === 'number') {
      this.settle(message.id, message);
    }
  }

  private settle(id: number, message: Message): void {
    const waiter = this.pending.get(id);
    if (!waiter) return;
    this.pending.delete(id);
    if (typeof message.text === 'string') waiter.resolve(message.text);
    else waiter.reject(new Error(`cluster metrics: ${message.error ?? 'no answer'}`));
  }
}

/** In the primary: serve the children's scrapes with the sum of every ready child's metrics. */
export class PrimaryMetrics {
  private readonly collections = new Map<number, { metrics: MetricsJson[]; waiting: number; done: (error?: string) => void }>();

  constructor(private readonly readyChildren: () => Worker[]) {
    cluster.on('message', (worker, message: Message) => {
      if (message?.type === SCRAPE) void this.answer(worker, message.id);
      else if (message?.type === COLLECTED) this.collected(message);
    });
  }

  private async answer(worker: Worker, id: number | undefined): Promise<void> {
    try {
      const text = await this.aggregate();
      if (worker.isConnected()) worker.send({ type: SCRAPED, id, text });
    } catch (error) {
      if (worker.isConnected()) worker.send({ type: SCRAPED, id, error: (error as Error).message });
    }
  }

  private aggregate(): Promise<string> {
    const children = this.readyChildren().filter((child) => child.isConnected());
    const id = nextId++;
    return new Promise<MetricsJson[]>((resolve, reject) => {
      const metrics: MetricsJson[] = [];
      const timer = setTimeout(() => finish(`${this.collections.get(id)?.waiting ?? 0} process(es) did not answer`), TIMEOUT_MS);
      const finish = (error?: string) => {
        clearTimeout(timer);
        this.collections.delete(id);
        if (error) reject(new Error(error));
        else resolve(metrics);
      };
      this.collections.set(id, { metrics, waiting: children.length, done: finish });
      if (children.length === 0) return finish();
      for (const child of children) child.send({ type: COLLECT, id });
    }).then((all) => AggregatorRegistry.aggregate(all).metrics());
  }

  private collected(message: Message): void {
    const collection = typeof message.id === 'number' ? this.collections.get(message.id) : undefined;
    if (!collection) return;
    if (message.error || !message.metrics) return collection.done(message.error ?? 'empty answer');
    collection.metrics.push(message.metrics);
    if (--collection.waiting === 0) collection.done();
  }
}

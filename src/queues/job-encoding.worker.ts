import { parentPort } from 'node:worker_threads';

/** The thread of JobEncodingThread: `JSON.stringify` and UTF-8 of large jobs, off the event loop. */
const encoder = new TextEncoder();

parentPort?.on('message', ({ id, data }: { id: number; data: unknown }) => {
  try {
    // A fresh array of its own (never a slice of a pooled buffer), so it can be handed over without a copy.
    const json = encoder.encode(JSON.stringify(data));
    parentPort!.postMessage({ id, json }, [json.buffer]);
  } catch (error) {
    parentPort!.postMessage({ id, message: error instanceof Error ? error.message : String(error) });
  }
});

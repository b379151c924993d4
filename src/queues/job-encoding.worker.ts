import { parentPort } from 'node:worker_threads';
import { jsonWithHeldStrings } from '../common/json/held-strings';

/** The thread of JobEncodingThread: `JSON.stringify` and UTF-8 of large jobs, off the event loop. */
const encoder = new TextEncoder();

type Request = { id: number; data: unknown; held?: { nonce: string; json: Map<number, Uint8Array> } };

parentPort?.on('message', ({ id, data, held }: Request) => {
  try {
    // A fresh array of its own (never a slice of a pooled buffer), so it can be handed over without a copy.
    const json = held ? jsonWithHeldStrings(data, held.nonce, held.json) : encoder.encode(JSON.stringify(data));
    parentPort!.postMessage({ id, json }, [json.buffer]);
  } catch (error) {
    parentPort!.postMessage({ id, message: error instanceof Error ? error.message : String(error) });
  }
});

import type { TestApp } from './test-app';

/** A stored event as the suites read it back. */
export interface StoredEvent {
  uuid: string;
  event: string;
  distinct_id: string;
  properties: Record<string, any>;
  timestamp: Date;
  person_id: string | null;
  elements_chain: string;
}

export function storedEvents(t: TestApp, where = 'TRUE', params: unknown[] = []): Promise<StoredEvent[]> {
  return t.sql<StoredEvent>(
    `SELECT uuid::text, event, distinct_id, properties, timestamp, person_id, elements_chain FROM event WHERE ${where} ORDER BY timestamp, uuid`,
    params,
  );
}

export function warningsOf(t: TestApp, type?: string): Promise<Array<{ type: string; details: Record<string, unknown> }>> {
  return type
    ? t.sql('SELECT type, details FROM ingestion_warning WHERE type = $1 ORDER BY id', [type])
    : t.sql('SELECT type, details FROM ingestion_warning ORDER BY id');
}

/** Sends raw bytes to a capture path with no Authorization header, as SDKs do. */
export function sendRaw(t: TestApp, path: string, raw: string | Uint8Array | undefined, headers: Record<string, string> = {}, method = 'POST') {
  return t.http.request(method, path, { key: null, raw, headers });
}

export function sendJson(t: TestApp, path: string, body: unknown, headers: Record<string, string> = {}) {
  return t.http.request('POST', path, { key: null, raw: JSON.stringify(body), headers: { 'content-type': 'application/json', ...headers } });
}

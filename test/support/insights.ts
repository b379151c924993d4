import type { TestApp } from './test-app';

/** A legacy insight filter as a query string: strings as they are, everything else as JSON (events, properties…). */
export function filterQuery(params: Record<string, unknown>): string {
  return new URLSearchParams(Object.entries(params).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)] as [string, string])).toString();
}

/** Follows a URL from an insight reply (absolute, or relative as `persons_urls` are) and returns its 200 body. */
export async function followUrl(t: TestApp, url: string): Promise<any> {
  const relative = url.replace(/^https?:\/\/[^/]+/, '');
  const res = await t.http.get(relative.startsWith('/') ? relative : `/${relative}`);
  expect(res.status).toBe(200);
  return res.body;
}

/** Runs a query node through `base`'s /query/ and returns its 200 body. */
export async function runQuery(t: TestApp, base: string, query: Record<string, unknown>): Promise<any> {
  const res = await t.http.post(`${base}/query/`, { query });
  expect(res.status).toBe(200);
  return res.body;
}

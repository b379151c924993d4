/**
 * The console's one way to the server: the public API, with the session cookie the sign-in set. A write echoes the
 * readable `csrftoken` cookie in `X-CSRFToken`, which the server compares with the session's own token.
 */
export class ApiFailure extends Error {
  constructor(readonly status: number, readonly detail: string, readonly attr: string | null = null) {
    super(detail);
  }
}

/** What to show a person for a failed call: the server's own detail when it gave one. */
export function errorText(failure: unknown): string {
  return failure instanceof Error ? failure.message : String(failure);
}

/** Called when the server says the session is over, so the shell can show the sign-in page. */
let onSignedOut: () => void = () => undefined;
export function whenSignedOut(handler: () => void): void {
  onSignedOut = handler;
}

function csrfToken(): string {
  const match = /(?:^|;\s*)csrftoken=([^;]*)/.exec(document.cookie);
  return match ? decodeURIComponent(match[1]) : '';
}

async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET') headers['x-csrftoken'] = csrfToken();
  const response = await fetch(path, { method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  const parsed = text ? safeJson(text) : null;
  if (response.ok) return parsed as T;
  const error = (parsed ?? {}) as { detail?: string; attr?: string | null };
  if (response.status === 401 && !path.startsWith('/api/login')) onSignedOut();
  throw new ApiFailure(response.status, error.detail ?? `The server answered ${response.status}.`, error.attr ?? null);
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { detail: text.slice(0, 200) };
  }
}

export const api = {
  get: <T>(path: string) => request<T>('GET', path),
  post: <T>(path: string, body: unknown = {}) => request<T>('POST', path, body),
  patch: <T>(path: string, body: unknown) => request<T>('PATCH', path, body),
};

/** A path under the current project: `/api/projects/<id>/<rest>`. */
export function projectApi(projectId: number, rest: string): string {
  return `/api/projects/${projectId}/${rest}`;
}

/** A query string from the defined values of an object. */
export function queryString(values: Record<string, string | number | boolean | null | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(values)) if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  const text = params.toString();
  return text ? `?${text}` : '';
}

export interface Page<T> {
  results: T[];
  next: string | null;
  count?: number;
}

export interface HttpResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  /** Personal API key for the Authorization header; `null` sends none. Defaults to the client's key. */
  key?: string | null;
  headers?: Record<string, string>;
  /** A raw body (string or bytes) sent as is; otherwise `json` is serialised. */
  raw?: string | Uint8Array;
  json?: unknown;
}

/** A small fetch wrapper that parses JSON replies and keeps the raw text for exact assertions. */
export class HttpClient {
  constructor(
    readonly baseUrl: string,
    private readonly defaultKey: string | null,
  ) {}

  withKey(key: string | null): HttpClient {
    return new HttpClient(this.baseUrl, key);
  }

  get<T = any>(path: string, options: RequestOptions = {}) {
    return this.request<T>('GET', path, options);
  }
  post<T = any>(path: string, json?: unknown, options: RequestOptions = {}) {
    return this.request<T>('POST', path, { json, ...options });
  }
  patch<T = any>(path: string, json?: unknown, options: RequestOptions = {}) {
    return this.request<T>('PATCH', path, { json, ...options });
  }
  delete<T = any>(path: string, options: RequestOptions = {}) {
    return this.request<T>('DELETE', path, options);
  }

  async request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<HttpResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    const key = options.key === undefined ? this.defaultKey : options.key;
    if (key) headers.authorization = `Bearer ${key}`;
    let body: string | Uint8Array | undefined = options.raw;
    if (body === undefined && options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${this.baseUrl}${path}`, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    if ((response.headers.get('content-type') ?? '').includes('json') && text.length > 0) parsed = JSON.parse(text);
    return { status: response.status, headers: response.headers, body: parsed as T, text };
  }
}

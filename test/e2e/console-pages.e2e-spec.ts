import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApp, TestApp } from '../support/test-app';

/** A console build in miniature: the page and two hashed assets, as vite lays them out. */
const PAGE = '<!doctype html><html><head><script type="module" src="/assets/index-Ab12Cd34.js"></script></head><body><div id="root"></div></body></html>';
const SCRIPT = 'console.log("console");\n';
const STYLE = 'body { margin: 0; }\n';
const PAGE_POLICY = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'";
const NOT_FOUND = { type: 'invalid_request', code: 'not_found', detail: 'Endpoint not found: the API is described at /api/docs/ (OpenAPI at /api/schema/), and the web console is at /.', attr: null };

function fakeConsole(root: string): string {
  const dir = join(root, 'built');
  mkdirSync(join(dir, 'assets'), { recursive: true });
  writeFileSync(join(dir, 'index.html'), PAGE);
  writeFileSync(join(dir, 'assets', 'index-Ab12Cd34.js'), SCRIPT);
  writeFileSync(join(dir, 'assets', 'index-Ef56Gh78.css'), STYLE);
  return dir;
}

function unbuiltConsole(root: string): string {
  const dir = join(root, 'unbuilt');
  mkdirSync(join(dir, 'assets'), { recursive: true });
  return dir;
}

describe('Console pages', () => {
  let root: string;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'hogbase-console-'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  describe('with a built console', () => {
    let t: TestApp;

    beforeAll(async () => {
      t = await startTestApp({ consoleDir: fakeConsole(root) });
    });
    afterAll(() => t.close());

    it('answers / with the page, its content policy and no-cache', async () => {
      const res = await t.http.get('/', { key: null });
      expect({ status: res.status, body: res.text }).toEqual({ status: 200, body: PAGE });
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('content-security-policy')).toBe(PAGE_POLICY);
      expect(res.headers.get('cache-control')).toBe('no-cache');
    });

    it.each(['/login', '/events', '/insights', '/insights/abc', '/dashboards/3', '/persons/some-id', '/feature_flags/new', '/data-management/events/'])(
      'answers the console path %s with the same page',
      async (path) => {
        const res = await t.http.get(path, { key: null });
        expect({ status: res.status, body: res.text, type: res.headers.get('content-type') }).toEqual({ status: 200, body: PAGE, type: 'text/html; charset=utf-8' });
      },
    );

    it('answers HEAD on a console path without a body', async () => {
      const res = await t.http.request('HEAD', '/insights/abc', { key: null });
      expect({ status: res.status, body: res.text, policy: res.headers.get('content-security-policy') }).toEqual({ status: 200, body: '', policy: PAGE_POLICY });
    });

    it('serves an asset with its type and a year-long immutable cache', async () => {
      const script = await t.http.get('/assets/index-Ab12Cd34.js', { key: null });
      expect({ status: script.status, body: script.text }).toEqual({ status: 200, body: SCRIPT });
      expect(script.headers.get('content-type')).toMatch(/^(text|application)\/javascript/);
      expect(script.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      const style = await t.http.get('/assets/index-Ef56Gh78.css', { key: null });
      expect({ status: style.status, body: style.text, type: style.headers.get('content-type') }).toEqual({ status: 200, body: STYLE, type: 'text/css; charset=utf-8' });
    });

    it('answers an unknown asset with the API 404', async () => {
      const res = await t.http.get('/assets/missing.js', { key: null });
      expect({ status: res.status, body: res.body }).toEqual({ status: 404, body: NOT_FOUND });
      expect(res.headers.get('cache-control')).toBe('no-store');
    });

    it('leaves unknown API paths to the API 404', async () => {
      const res = await t.http.get('/api/nope/', { key: null });
      expect({ status: res.status, body: res.body }).toEqual({ status: 404, body: NOT_FOUND });
    });

    it('still serves the API beside the page', async () => {
      const res = await t.http.get('/api/users/@me/');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-security-policy')).toBe("frame-ancestors 'none'");
    });
  });

  describe('without a built console', () => {
    let t: TestApp;

    beforeAll(async () => {
      t = await startTestApp({ consoleDir: unbuiltConsole(root) });
    });
    afterAll(() => t.close());

    it('answers / with a 404 that says how to build the console', async () => {
      const res = await t.http.get('/', { key: null });
      expect({ status: res.status, body: res.body }).toEqual({
        status: 404,
        body: { type: 'invalid_request', code: 'not_found', detail: 'The web console was not built: run `npm run build`. The API and its docs (/api/docs/) work without it.', attr: null },
      });
      expect(res.headers.get('cache-control')).toBe('no-store');
    });

    it('serves no console paths', async () => {
      const res = await t.http.get('/insights/abc', { key: null });
      expect({ status: res.status, body: res.body }).toEqual({ status: 404, body: NOT_FOUND });
    });
  });
});

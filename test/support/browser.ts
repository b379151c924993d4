import { createServer, Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, Browser } from 'playwright-core';

const POSTHOG_JS = join(__dirname, '..', '..', 'node_modules', 'posthog-js', 'dist', 'array.full.js');
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Debian's Chromium, headless, with the flags that keep it off the (closed) network. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
  });
}

/** A page on its own origin (another port than the API), as a customer's site would be. */
export async function servePostHogPage(): Promise<{ url: string; close: () => Promise<void> }> {
  const script = readFileSync(POSTHOG_JS);
  const server: Server = createServer((request, response) => {
    if (request.url === '/posthog.js') {
      response.writeHead(200, { 'content-type': 'application/javascript' });
      response.end(script);
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html' });
    response.end('<!doctype html><html><head><script src="/posthog.js"></script></head><body><button id="buy">Buy</button></body></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

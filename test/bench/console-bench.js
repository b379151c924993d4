'use strict';
// The web console: what a browser downloads (the built bundle, gzip as served by any front proxy) and how long a
// dashboard of six everyday questions takes to show in Debian's Chromium, first computed and then from the saved
// results. References in the same run: the same six questions POSTed to /query/ one after another, and the
// dashboard's own API read, so the rows say what the page adds over the API; then /capture/ at a fixed rate alone and
// with the console in use. Run by the analytics phase on its data set, once its service is up.
const { execFileSync } = require('node:child_process');
const { readdirSync, readFileSync } = require('node:fs');
const { join } = require('node:path');
const { gzipSync } = require('node:zlib');
const { performance } = require('node:perf_hooks');
const { ROOT, percentile, sql } = require('./bench-support');

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ADMIN_EMAIL = 'admin@localhost';
const ADMIN_PASSWORD = 'benchmark-console-password';
const RELOADS = 5;

const series = (extra = {}) => [{ kind: 'EventsNode', event: '$pageview', name: '$pageview', math: 'total', ...extra }];
const last30 = { date_from: '-30d' };
const chrome = [{ key: '$browser', value: 'Chrome', operator: 'exact', type: 'event' }];

/** The six questions: what a first dashboard holds (volume, a filter, a breakdown, active users, a funnel, retention). */
const TILES = [
  ['Page views', { kind: 'TrendsQuery', series: series(), dateRange: last30, interval: 'day' }],
  ['Page views in Chrome', { kind: 'TrendsQuery', series: series(), dateRange: last30, interval: 'day', properties: chrome }],
  ['Page views by browser', { kind: 'TrendsQuery', series: series(), dateRange: last30, interval: 'day', breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' } }],
  ['Daily visitors of /p/1', { kind: 'TrendsQuery', series: series({ math: 'dau' }), dateRange: last30, interval: 'day', properties: [{ key: '$current_url', value: '/p/1', operator: 'icontains', type: 'event' }] }],
  ['Sign-up funnel', { kind: 'FunnelsQuery', series: ['$pageview', 'signed_up', 'checkout'].map((event) => ({ kind: 'EventsNode', event, name: event })), dateRange: last30, funnelsFilter: { funnelWindowInterval: 14, funnelWindowIntervalUnit: 'day' } }],
  ['Retention', { kind: 'RetentionQuery', dateRange: last30, retentionFilter: { targetEntity: { id: '$pageview', type: 'events' }, returningEntity: { id: '$pageview', type: 'events' }, period: 'Day', totalIntervals: 8 } }],
];

function bundleRows(row) {
  const assets = join(ROOT, 'dist', 'console', 'assets');
  const files = readdirSync(assets).map((name) => readFileSync(join(assets, name)));
  const raw = files.reduce((sum, file) => sum + file.length, 0);
  const gzip = files.reduce((sum, file) => sum + gzipSync(file, { level: 9 }).length, 0);
  row('console bundle', 'gzip KB', Math.round(gzip / 1024), `${Math.round(raw / 1024)} KB raw in ${files.length} files (JS and CSS), all of the console; nothing loads from elsewhere`);
}

async function api(baseUrl, personalKey, method, path, body) {
  const response = await fetch(`${baseUrl}${path}`, { method, headers: { authorization: `Bearer ${personalKey}`, 'content-type': 'application/json' }, body: body && JSON.stringify(body) });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 2000)}`);
  return JSON.parse(text);
}

async function timedMs(call) {
  const started = performance.now();
  await call();
  return Math.round(performance.now() - started);
}

/** A dashboard page until every tile shows its result (a chart, funnel bars or a grid), in ms from navigation. */
async function dashboardShown(page, url) {
  return timedMs(async () => {
    await page.goto(url);
    await page.waitForFunction((count) => {
      const tiles = [...document.querySelectorAll('[data-testid=dashboard-tile]')];
      return tiles.length === count && tiles.every((tile) => tile.querySelector('canvas, [data-testid=funnel], [data-testid=retention-grid], .error, .empty'));
    }, TILES.length, { timeout: 600_000, polling: 50 });
  });
}

/**
 * The console in use while capture is measured, as the server sees it: every 2 s the requests of a dashboard view from
 * its saved results (the page, its script and stylesheet, the user, the dashboard), and every 3 s the live events
 * page's poll, with a session cookie. Replayed from here rather than driven in Chromium, whose own CPU on the same two
 * cores would be measured instead of the server's work (a person's browser runs on their machine).
 */
async function consoleInBackground(baseUrl, dashboardId) {
  const login = await fetch(`${baseUrl}/api/login/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD }) });
  const cookie = login.headers.getSetCookie().map((value) => value.split(';')[0]).join('; ');
  const assets = readdirSync(join(ROOT, 'dist', 'console', 'assets')).map((name) => `/assets/${name}`);
  const fetched = async (path) => {
    const response = await fetch(`${baseUrl}${path}`, { headers: { cookie } });
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`console traffic: GET ${path} answered ${response.status}`);
  };
  const view = [`/dashboards/${dashboardId}`, ...assets, '/api/users/@me/', `/api/projects/1/dashboards/${dashboardId}/?refresh=blocking`];
  const counts = { views: 0, polls: 0 };
  let stopped = false;
  const every = (ms, work) =>
    (async () => {
      while (!stopped) {
        const started = performance.now();
        await work();
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, ms - (performance.now() - started))));
      }
    })();
  const loops = [
    every(2000, async () => {
      for (const path of view) await fetched(path);
      counts.views++;
    }),
    every(3000, async () => {
      await fetched('/api/projects/1/events/?limit=100');
      counts.polls++;
    }),
  ];
  return {
    stop: async () => {
      stopped = true;
      await Promise.all(loops);
      return `console traffic: ${counts.views} dashboard views from saved results (${view.length} requests each) and ${counts.polls} live-events polls`;
    },
  };
}

async function runConsoleDashboard(row, { baseUrl, personalKey, env, captureBeside }) {
  bundleRows(row);
  // The console signs in with a password; the CLI sets a known one whatever the data set's first boot chose.
  execFileSync(process.execPath, ['dist/cli/cli.js', 'users', 'set-password', '--email', ADMIN_EMAIL, '--password', ADMIN_PASSWORD], { cwd: ROOT, env: { ...process.env, ...env } });
  // Results are kept by question, so a kept data set would serve the last run's: the first view must compute.
  await sql(env.DATABASE_URL, 'DELETE FROM insight_result');
  const dashboard = await api(baseUrl, personalKey, 'POST', '/api/projects/1/dashboards/', { name: `Benchmark ${Date.now()}` });
  for (const [name, source] of TILES) {
    await api(baseUrl, personalKey, 'POST', '/api/projects/1/insights/', { name, query: { kind: 'InsightVizNode', source }, dashboards: [dashboard.id] });
  }
  const { chromium } = require('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
  try {
    const context = await browser.newContext({ baseURL: baseUrl, reducedMotion: 'reduce', viewport: { width: 1440, height: 1000 } });
    const login = await context.request.post('/api/login/', { data: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } });
    if (!login.ok()) throw new Error(`sign-in: ${login.status()} ${await login.text()}`);
    const page = await context.newPage();
    const url = `/dashboards/${dashboard.id}`;
    const first = await dashboardShown(page, url);
    const reloads = [];
    for (let i = 0; i < RELOADS; i++) reloads.push(await dashboardShown(page, url));
    reloads.sort((a, b) => a - b);
    const cachedRead = await timedMs(() => api(baseUrl, personalKey, 'GET', `/api/projects/1/dashboards/${dashboard.id}/?refresh=blocking`));
    // Computing again, both ways, with the engine's caches as warm for one as for the other: the API first, then the page.
    const queries = await timedMs(async () => {
      for (const [, source] of TILES) await api(baseUrl, personalKey, 'POST', '/api/projects/1/query/', { query: source, refresh: 'force_blocking' });
    });
    const refreshed = await timedMs(async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      await page.getByText('Computing…').waitFor();
      await page.getByText('Computing…').waitFor({ state: 'detached', timeout: 600_000 });
    });
    row('console: 6-tile dashboard, first view', 'ms to every tile drawn', first, 'a new dashboard: the page computes all six questions (the engine reads this data for the first time since its start)');
    row('console: 6-tile dashboard, Refresh', 'ms to every tile drawn', refreshed, `the six questions POSTed to /query/ one after another (force_blocking): ${queries} ms`);
    row('console: 6-tile dashboard, saved results', 'p50 / max ms', `${percentile(reloads, 0.5)} / ${reloads[reloads.length - 1]}`, `${RELOADS} reloads of the page; the dashboard API read alone: ${cachedRead} ms`);
  } finally {
    await browser.close();
  }
  // With the browser closed, so that only the server's work competes with capture.
  await captureBeside('the console in use', () => consoleInBackground(baseUrl, dashboard.id));
}

module.exports = { runConsoleDashboard, TILES };

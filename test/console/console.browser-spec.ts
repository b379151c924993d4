import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../support/browser';
import { ingestBatch } from '../support/ingestion';
import { sendJson } from '../support/capture-client';
import { startTestApp, TestApp } from '../support/test-app';

/** Screenshots of every step land here, for a reader to see what the browser saw. */
const SHOTS = join(__dirname, '..', '..', 'test-output', 'console');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * The web console in Debian's Chromium against the real service, over these events (times before now):
 *
 *   u1  $pageview /home 60 min, $pageview /pricing 55 min, signed_up 50 min
 *   u2  $pageview /home 120 min, $pageview /pricing 115 min, signed_up 110 min
 *   u3  $pageview /docs 3 days, $pageview /docs 2 days
 *   u4  $pageview /docs 4 days
 *   u5  $pageview 10 days;  u6  $pageview 20 days
 *
 * Page views in the last 7 days: 7; in the last 30: 9. Funnel $pageview → signed_up over 7 days: 4 persons, then 2
 * (50%). Retention, first-time $pageview cohorts by day: u3's day has 1 person and 1 back on day 1. Paths: /home →
 * /pricing taken by 2 persons.
 */
describe('Web console', () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const now = Date.now();
  const at = (ms: number) => new Date(now - ms).toISOString();
  const view = (distinctId: string, ms: number, url?: string) => ({ event: '$pageview', distinct_id: distinctId, timestamp: at(ms), properties: url ? { $current_url: url } : {} });

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    t = await startTestApp({ env: { ROLE: 'all' } });
    await ingestBatch(t, t.keys.projectApiKey, [
      view('u1', 60 * 60_000, '/home'), view('u1', 55 * 60_000, '/pricing'), { event: 'signed_up', distinct_id: 'u1', timestamp: at(50 * 60_000), properties: {} },
      view('u2', 120 * 60_000, '/home'), view('u2', 115 * 60_000, '/pricing'), { event: 'signed_up', distinct_id: 'u2', timestamp: at(110 * 60_000), properties: {} },
      view('u3', 3 * DAY, '/docs'), view('u3', 2 * DAY, '/docs'), view('u4', 4 * DAY, '/docs'), view('u5', 10 * DAY), view('u6', 20 * DAY),
    ]);
    browser = await launchChromium();
    // Reduced motion turns off the charts' animation, so a drawn chart is final when it appears.
    context = await browser.newContext({ baseURL: t.baseUrl, reducedMotion: 'reduce', viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

  it('refuses a wrong password with the reason, then signs in and shows the project key and a snippet', async () => {
    await page.goto('/');
    await page.getByLabel('E-mail').fill('admin@localhost');
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/e-mail or password/i);
    await page.getByLabel('Password').fill(t.keys.adminPassword);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('project-token').waitFor();
    expect(await page.getByTestId('project-token').textContent()).toBe(t.keys.projectApiKey);
    expect(await page.locator('pre').first().textContent()).toContain(`posthog.init('${t.keys.projectApiKey}', { api_host: '${t.baseUrl}' })`);
    await shot('01-home');
  });

  it('shows an event sent to /batch/ on the live events page without a reload, and opens its person', async () => {
    await page.getByRole('link', { name: 'Live events' }).click();
    await page.locator('.event-row').first().waitFor();
    expect(await page.locator('.event-row', { hasText: 'console_live_check' }).count()).toBe(0);
    expect((await sendJson(t, '/batch/', { api_key: t.keys.projectApiKey, batch: [{ event: 'console_live_check', distinct_id: 'live-visitor', properties: { plan: 'pro' } }] })).status).toBe(200);
    const row = page.locator('.event-row', { hasText: 'console_live_check' });
    await row.waitFor({ timeout: 15_000 });
    await row.click();
    await page.getByText('Open person live-visitor').click();
    await page.getByTestId('person-name').waitFor();
    expect(await page.getByTestId('person-name').textContent()).toBe('live-visitor');
    await shot('02-live-events');
  });

  it('builds a trend, switches its displays, saves it, puts it on a new dashboard, and the dashboard date range changes the tile', async () => {
    await page.goto('/insights/new');
    await expect(seriesTotals(page)).resolves.toEqual(['7']);
    expect(await drawnPixels(page, 'trend chart')).toBeGreaterThan(500);
    await page.getByRole('button', { name: 'Bar', exact: true }).click();
    await waitForResult(page);
    expect(await drawnPixels(page, 'trend chart')).toBeGreaterThan(500);
    await page.getByRole('button', { name: 'Number', exact: true }).click();
    await page.getByTestId('bold-number').waitFor();
    expect(await page.getByTestId('bold-number').textContent()).toBe('7');
    await page.getByRole('button', { name: 'Table', exact: true }).click();
    await expect(seriesTotals(page)).resolves.toEqual(['7']);
    await page.getByRole('button', { name: 'Line', exact: true }).click();
    await waitForResult(page);
    await page.getByLabel('Insight name').fill('Page views this week');
    await page.getByRole('button', { name: 'Save insight' }).click();
    await page.waitForURL(/\/insights\/[A-Za-z0-9]{8}$/);
    await shot('03-trend');

    await page.getByLabel('Add to dashboard').selectOption('new');
    await page.getByLabel('New dashboard name').fill('Growth');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await page.getByRole('link', { name: 'Growth' }).click();
    const tile = page.getByTestId('dashboard-tile');
    await tile.getByTestId('series-total').waitFor();
    expect(await tile.getByTestId('series-total').allTextContents()).toEqual(['7']);
    await page.getByLabel('Dashboard date range').selectOption('-30d');
    await tile.getByTestId('series-total').filter({ hasText: /^9$/ }).waitFor();
    expect(await drawnPixels(page, 'trend chart')).toBeGreaterThan(500);
    await shot('04-dashboard');
  });

  it('draws a funnel with each step\'s persons and conversion', async () => {
    await page.goto('/insights/new');
    await page.getByRole('tab', { name: 'Funnels' }).click();
    await page.getByLabel('Step 2').fill('signed_up');
    await page.getByTestId('funnel').waitFor();
    await page.getByTestId('funnel-count').nth(1).filter({ hasText: /^2 persons$/ }).waitFor();
    expect(await page.getByTestId('funnel-count').allTextContents()).toEqual(['4 persons', '2 persons']);
    expect(await page.getByTestId('funnel-conversion').allTextContents()).toEqual(['100% of the first step', '50% of the first step']);
    await shot('05-funnel');
  });

  it("fills a retention grid's cells", async () => {
    await page.goto('/insights/new');
    await page.getByRole('tab', { name: 'Retention' }).click();
    const cohortDay = new Date(now - 3 * DAY).toISOString().slice(0, 10);
    const row = page.locator(`tr[data-date^="${cohortDay}"]`);
    await row.waitFor();
    expect(await row.locator('td').nth(1).textContent()).toBe('1');
    expect(await row.locator('td.cell').evaluateAll((cells) => cells.slice(0, 2).map((cell) => [cell.getAttribute('data-count'), cell.textContent]))).toEqual([
      ['1', '100%'],
      ['1', '100%'],
    ]);
    // Today's cohort has had one period: the cells after it are left blank.
    const today = page.locator(`tr[data-date^="${new Date(now).toISOString().slice(0, 10)}"]`);
    expect(await today.locator('td.cell').count()).toBe(1);
    await shot('06-retention');
  });

  it('draws a paths diagram with the links persons took', async () => {
    await page.goto('/insights/new');
    await page.getByRole('tab', { name: 'Paths' }).click();
    const link = page.getByTestId('paths-table').locator('tr', { hasText: '1_/home' });
    await link.waitFor();
    expect(await link.locator('td').allTextContents()).toEqual(['1_/home', '2_/pricing', '2']);
    expect(await drawnPixels(page, 'paths diagram')).toBeGreaterThan(500);
    await shot('07-paths');
  });

  it('turns a flag on from the list, and /flags/ answers the change', async () => {
    const created = await t.http.post(`/api/projects/${t.keys.projectId}/feature_flags/`, { key: 'new-checkout', name: 'New checkout', active: false, filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
    expect(created.status).toBe(201);
    const enabled = async () => (await sendJson(t, '/flags/?v=2', { token: t.keys.projectApiKey, distinct_id: 'u1' })).body.flags['new-checkout']?.enabled;
    // An inactive flag is left out of the answer, as PostHog leaves it out.
    expect(await enabled()).toBeUndefined();
    await page.goto('/feature_flags');
    await page.getByLabel('Active: new-checkout').click();
    await page.locator('tr[data-flag="new-checkout"] .badge.on').waitFor();
    expect(await enabled()).toBe(true);
    await shot('08-flags');
  });
});

async function waitForResult(page: Page): Promise<void> {
  await page.locator('[data-testid=insight-result][aria-busy=false]').waitFor();
}

/** The totals of the series table once the insight has its answer. */
async function seriesTotals(page: Page): Promise<string[]> {
  await waitForResult(page);
  return page.getByTestId('insight-result').getByTestId('series-total').allTextContents();
}

/** How many pixels of a chart's canvas are painted: a chart that drew nothing has none. */
async function drawnPixels(page: Page, label: string): Promise<number> {
  const canvas = page.getByRole('img', { name: label }).first();
  await canvas.waitFor();
  // The callback runs in the page; `any` stands for its canvas, since this file compiles without the DOM's types.
  return canvas.evaluate((element: any) => {
    const { data } = element.getContext('2d').getImageData(0, 0, element.width, element.height);
    let painted = 0;
    for (let i = 3; i < data.length; i += 4) if (data[i] > 0) painted++;
    return painted;
  });
}

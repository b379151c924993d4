import { gunzipSync } from 'node:zlib';
import type { Browser, Page, Request } from 'playwright-core';
import { rolloutHash, variantHash } from '../../src/kernel/hash';
import { pickVariant } from '../../src/kernel/variants';
import { launchChromium, servePostHogPage } from '../support/browser';
import { waitForRows } from '../support/ingestion';
import { startTestApp, TestApp } from '../support/test-app';

declare const posthog: any;
declare const window: any;

const USER = 'user-x';
const VARIANTS = [
  { key: 'control', rollout_percentage: 34 },
  { key: 'blue', rollout_percentage: 33 },
  { key: 'green', rollout_percentage: 33 },
];
const PAYLOADS: Record<string, string> = { control: '{"color":"grey"}', blue: '{"color":"blue","size":2}', green: '["g",1]' };

/**
 * A continuity flag at 50 % that `user-x` is out of, and an anonymous id that is in it: without the
 * hash-key override the flag would turn off at identify.
 */
const CONTINUITY = Array.from({ length: 50 }, (_, i) => `sticky-rollout-${i}`).find((key) => rolloutHash(key, USER) > 0.5)!;
const ANON = Array.from({ length: 50 }, (_, i) => `anon-visitor-${i}`).find((id) => rolloutHash(CONTINUITY, id) <= 0.5)!;
const ANON_VARIANT = pickVariant(VARIANTS, variantHash('checkout-variant', ANON))!;
/** checkout-variant has no continuity: it follows the identified id. */
const USER_VARIANT = pickVariant(VARIANTS, variantHash('checkout-variant', USER))!;

interface SeenRequest {
  method: string;
  path: string;
  body: any;
}

/** What the page sent to our server: method, path (with query) and the decoded JSON body. */
function recordRequests(page: Page, baseUrl: string): SeenRequest[] {
  const seen: SeenRequest[] = [];
  page.on('request', (request: Request) => {
    if (!request.url().startsWith(baseUrl)) return;
    const raw = request.postDataBuffer();
    let body: unknown = null;
    if (raw && raw.length > 0) {
      const text = raw[0] === 0x1f && raw[1] === 0x8b ? gunzipSync(raw).toString('utf8') : raw.toString('utf8');
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    seen.push({ method: request.method(), path: request.url().slice(baseUrl.length), body });
  });
  return seen;
}

/** Flag state as posthog-js reports it through its public API. */
function readFlags(page: Page, continuityKey: string) {
  return page.evaluate((sticky) => {
    const keys = ['always-on', 'checkout-variant', 'pro-only', sticky];
    return {
      enabled: Object.fromEntries(keys.map((k) => [k, posthog.isFeatureEnabled(k)])),
      values: Object.fromEntries(keys.map((k) => [k, posthog.getFeatureFlag(k)])),
      payload: posthog.getFeatureFlagPayload('checkout-variant'),
    };
  }, continuityKey);
}

/** Runs `action` in the page and waits until posthog-js has called the onFeatureFlags listeners once more. */
async function nextFlagLoad(page: Page, action: (sticky: string) => void): Promise<{ flags: string[]; variants: Record<string, string | boolean> }> {
  const before: number = await page.evaluate(() => window.flagLoads.length);
  await page.evaluate(action, CONTINUITY);
  await page.waitForFunction((n) => window.flagLoads.length > n, before, { timeout: 10_000 });
  return page.evaluate(() => window.flagLoads[window.flagLoads.length - 1]);
}

/** posthog-js in headless Chromium reading our flags: callbacks, getters, payloads, identify and experience continuity. */
describe('posthog-js feature flags in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let site: { url: string; close: () => Promise<void> };

  const createFlag = async (body: Record<string, unknown>) => {
    const res = await t.http.post(`/api/projects/${t.keys.projectId}/feature_flags/`, body);
    expect(res.status).toBe(201);
  };

  beforeAll(async () => {
    t = await startTestApp({ env: { ROLE: 'all' } });
    await createFlag({ key: 'always-on', filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
    await createFlag({ key: 'checkout-variant', filters: { groups: [{ properties: [], rollout_percentage: 100 }], multivariate: { variants: VARIANTS }, payloads: PAYLOADS } });
    await createFlag({ key: 'pro-only', filters: { groups: [{ properties: [{ key: 'plan', value: 'pro', operator: 'exact', type: 'person' }], rollout_percentage: 100 }] } });
    await createFlag({ key: CONTINUITY, ensure_experience_continuity: true, filters: { groups: [{ properties: [], rollout_percentage: 50 }] } });
    browser = await launchChromium();
    site = await servePostHogPage();
  });
  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await t?.close();
  });

  it('picks ids for which continuity decides the outcome', () => {
    expect(CONTINUITY).toBeDefined();
    expect(ANON).toBeDefined();
    expect(rolloutHash(CONTINUITY, USER)).toBeGreaterThan(0.5);
    expect(rolloutHash(CONTINUITY, ANON)).toBeLessThanOrEqual(0.5);
  });

  it('loads the flags, keeps the continuity flag across identify and sends what PostHog expects', async () => {
    const token = t.keys.projectApiKey;
    const page = await browser.newPage();
    const sent = recordRequests(page, t.baseUrl);
    await page.goto(site.url);
    await page.evaluate(
      ([key, host, anon]) => {
        window.flagLoads = [];
        posthog.init(key, {
          api_host: host,
          autocapture: false,
          capture_pageview: false,
          capture_pageleave: false,
          disable_session_recording: true,
          opt_out_useragent_filter: true,
          person_profiles: 'always',
          persistence: 'memory',
          bootstrap: { distinctID: anon, isIdentifiedID: false },
        });
        posthog.onFeatureFlags((flags: string[], variants: Record<string, string | boolean>) => window.flagLoads.push({ flags, variants }));
      },
      [token, t.baseUrl, ANON] as const,
    );

    // First load, for the anonymous visitor.
    await page.waitForFunction(() => window.flagLoads.length > 0, undefined, { timeout: 10_000 });
    const first = await page.evaluate(() => window.flagLoads[0]);
    expect(new Set(first.flags)).toEqual(new Set(['always-on', 'checkout-variant', CONTINUITY]));
    // The callback gets the enabled flags and their values; pro-only is off for a visitor without a plan.
    expect(first.variants).toEqual({ 'always-on': true, 'checkout-variant': ANON_VARIANT, [CONTINUITY]: true });
    expect(await readFlags(page, CONTINUITY)).toEqual({
      enabled: { 'always-on': true, 'checkout-variant': true, 'pro-only': false, [CONTINUITY]: true },
      values: { 'always-on': true, 'checkout-variant': ANON_VARIANT, 'pro-only': false, [CONTINUITY]: true },
      payload: JSON.parse(PAYLOADS[ANON_VARIANT]),
    });

    // The anonymous person must exist before identify, or there is no one to give the override to.
    await page.evaluate(() => posthog.capture('$pageview'));
    await waitForRows(t, `SELECT person_id FROM person_distinct_id WHERE distinct_id = $1`, [ANON], 1, 20_000);

    // identify() sends the anonymous id with the next flags request; the server stores the override.
    const afterIdentify = await nextFlagLoad(page, () => posthog.identify('user-x', { plan: 'pro' }));
    expect(afterIdentify.variants).toEqual({ 'always-on': true, 'checkout-variant': USER_VARIANT, 'pro-only': true, [CONTINUITY]: true });
    expect(await t.sql(`SELECT feature_flag_key, hash_key FROM feature_flag_hash_key_override`)).toEqual([{ feature_flag_key: CONTINUITY, hash_key: ANON }]);

    // Once $identify has merged the ids, a plain reload (no anonymous id any more) still finds the override.
    await waitForRows(
      t,
      `SELECT 1 FROM person_distinct_id a JOIN person_distinct_id b ON a.person_id = b.person_id WHERE a.distinct_id = $1 AND b.distinct_id = $2`,
      [USER, ANON],
      1,
      20_000,
    );
    const reloaded = await nextFlagLoad(page, () => posthog.reloadFeatureFlags());
    expect(reloaded.variants).toEqual(afterIdentify.variants);
    const final = await readFlags(page, CONTINUITY);
    expect(final.enabled).toEqual({ 'always-on': true, 'checkout-variant': true, 'pro-only': true, [CONTINUITY]: true });
    expect(final.values).toEqual({ 'always-on': true, 'checkout-variant': USER_VARIANT, 'pro-only': true, [CONTINUITY]: true });
    expect(final.payload).toEqual(JSON.parse(PAYLOADS[USER_VARIANT]));

    // On the wire: the remote config script (which registers the config, so the JSON form is not needed),
    // then /flags/?v=2 for the anonymous id, with it as $anon_distinct_id after identify, then without.
    const paths = sent.map((r) => `${r.method} ${r.path.split('?')[0]}`);
    expect(paths.filter((p) => p.startsWith('GET /array/'))).toEqual([`GET /array/${token}/config.js`]);
    expect(paths.indexOf(`GET /array/${token}/config.js`)).toBeLessThan(paths.indexOf('POST /flags/'));
    const flagRequests = sent.filter((r) => r.method === 'POST' && r.path.startsWith('/flags/?v=2'));
    expect(sent.filter((r) => r.path.startsWith('/decide'))).toEqual([]);
    expect(flagRequests.map((r) => [r.body.distinct_id, r.body.$anon_distinct_id ?? null])).toEqual([
      [ANON, null],
      [USER, ANON],
      [USER, null],
    ]);
    expect(flagRequests[0].body).toMatchObject({ token, groups: {} });
    expect(flagRequests[1].body.person_properties).toMatchObject({ plan: 'pro' });
    await page.close();
  });

  it('falls back to the JSON remote config when config.js cannot load, and still gets its flags', async () => {
    const token = t.keys.projectApiKey;
    const page = await browser.newPage();
    const sent = recordRequests(page, t.baseUrl);
    await page.route(`${t.baseUrl}/array/${token}/config.js*`, (route) => route.abort());
    await page.goto(site.url);
    await page.evaluate(
      ([key, host]) => {
        window.flagLoads = [];
        posthog.init(key, { api_host: host, autocapture: false, capture_pageview: false, disable_session_recording: true, opt_out_useragent_filter: true, persistence: 'memory', bootstrap: { distinctID: 'fallback-visitor' } });
        posthog.onFeatureFlags((flags: string[], variants: Record<string, string | boolean>) => window.flagLoads.push({ flags, variants }));
      },
      [token, t.baseUrl] as const,
    );
    await page.waitForFunction(() => window.flagLoads.length > 0, undefined, { timeout: 10_000 });
    expect(await page.evaluate(() => posthog.isFeatureEnabled('always-on'))).toBe(true);
    expect(await page.evaluate(() => posthog.getFeatureFlag('pro-only'))).toBe(false);
    const paths = sent.map((r) => `${r.method} ${r.path.split('?')[0]}`);
    expect(paths.filter((p) => p.startsWith('GET /array/'))).toEqual([`GET /array/${token}/config.js`, `GET /array/${token}/config`]);
    expect(sent.find((r) => r.path.startsWith('/flags/?v=2'))?.body).toMatchObject({ token, distinct_id: 'fallback-visitor' });
    await page.close();
  });
});

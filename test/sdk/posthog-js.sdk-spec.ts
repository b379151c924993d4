import type { Browser } from 'playwright-core';
import { launchChromium, servePostHogPage } from '../support/browser';
import { waitForRows } from '../support/ingestion';
import { personByDistinctId } from '../support/persons';
import { startTestApp, TestApp } from '../support/test-app';

declare const posthog: any;

/** The real posthog-js in headless Chromium, configured by our remote config, sending to our server. */
describe('posthog-js in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let site: { url: string; close: () => Promise<void> };

  beforeAll(async () => {
    t = await startTestApp({ env: { ROLE: 'all' } });
    browser = await launchChromium();
    site = await servePostHogPage();
  });
  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await t.close();
  });

  describe.each([
    ['gzip (remote config offers gzip-js)', false],
    ['compression disabled', true],
  ])('with %s', (_label, disableCompression) => {
    const prefix = disableCompression ? 'js-plain' : 'js-gzip';

    it('captures, identifies and aliases; events and persons land as PostHog would store them', async () => {
      const page = await browser.newPage();
      const sent: Array<{ url: string; type: string | undefined; gzip: boolean }> = [];
      page.on('request', (request) => {
        if (!request.url().startsWith(t.baseUrl) || request.method() !== 'POST') return;
        const body = request.postDataBuffer();
        sent.push({ url: request.url(), type: request.headers()['content-type'], gzip: !!body && body[0] === 0x1f && body[1] === 0x8b });
      });
      await page.goto(site.url);
      const anonId: string = await page.evaluate(
        ([key, host, disable]) =>
          new Promise<string>((resolve) => {
            posthog.init(key, {
              api_host: host,
              autocapture: false,
              capture_pageview: false,
              capture_pageleave: false,
              disable_session_recording: true,
              opt_out_useragent_filter: true,
              disable_compression: disable,
              person_profiles: 'always',
              persistence: 'memory',
              loaded: (instance: any) => resolve(instance.get_distinct_id()),
            });
          }),
        [t.keys.projectApiKey, t.baseUrl, disableCompression] as const,
      );
      // Remote config arrives before the first send, so the compression choice is settled.
      await page.waitForResponse((response) => response.url().includes(`/array/${t.keys.projectApiKey}/config`));
      await page.evaluate((p) => {
        posthog.capture('clicked_buy', { plan: 'pro', prefix: p });
        posthog.identify(`${p}-user`, { email: `${p}@example.com` });
        posthog.alias(`${p}-alias`);
        posthog.capture('after_identify', { prefix: p });
      }, prefix);

      const events = await waitForRows<{ event: string; distinct_id: string; properties: Record<string, any> }>(
        t,
        `SELECT event, distinct_id, properties FROM event WHERE distinct_id IN ($1, $2) ORDER BY timestamp`,
        [anonId, `${prefix}-user`],
        4,
        20_000,
      );
      expect(events.map((e) => e.event)).toEqual(expect.arrayContaining(['clicked_buy', '$identify', '$create_alias', 'after_identify']));
      const click = events.find((e) => e.event === 'clicked_buy')!;
      expect(click.distinct_id).toBe(anonId);
      expect(click.properties).toMatchObject({ plan: 'pro', $lib: 'web', token: t.keys.projectApiKey });
      const person = await personByDistinctId(t, `${prefix}-user`);
      expect(person?.distinct_ids).toEqual([anonId, `${prefix}-alias`, `${prefix}-user`].sort());
      expect(person?.properties).toMatchObject({ email: `${prefix}@example.com` });

      const captures = sent.filter((request) => request.url.includes('/i/v0/e/'));
      expect(captures.length).toBeGreaterThan(0);
      if (disableCompression) expect(captures.every((c) => !c.gzip && c.type?.startsWith('application/json'))).toBe(true);
      else expect(captures.every((c) => c.gzip && c.type?.startsWith('text/plain'))).toBe(true);
      await page.close();
    });
  });
});

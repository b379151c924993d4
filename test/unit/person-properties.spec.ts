import { applyPersonPropertyRules } from '../../src/modules/ingestion/person-properties';

function rules(event: string, properties: Record<string, unknown>) {
  const copy = structuredClone(properties);
  applyPersonPropertyRules(event, copy);
  return copy;
}

describe('applyPersonPropertyRules', () => {
  it('lifts device, page and campaign properties into $set and first touch into $set_once', () => {
    expect(rules('$pageview', { $browser: 'Chrome', $current_url: 'https://a.example/x', utm_source: 'news', plan: 'pro' })).toEqual({
      $browser: 'Chrome',
      $current_url: 'https://a.example/x',
      utm_source: 'news',
      plan: 'pro',
      $set: { $browser: 'Chrome', $current_url: 'https://a.example/x', utm_source: 'news' },
      $set_once: { $initial_browser: 'Chrome', $initial_current_url: 'https://a.example/x', $initial_utm_source: 'news' },
    });
  });

  it("keeps the event's own $set and $set_once values over lifted ones", () => {
    const out = rules('e', { $browser: 'Chrome', $set: { $browser: 'Custom', a: 1 }, $set_once: { $initial_browser: 'First' } });
    expect(out.$set).toEqual({ $browser: 'Custom', a: 1 });
    expect(out.$set_once).toEqual({ $initial_browser: 'First' });
  });

  it('sets a null campaign value as latest touch but never as first touch', () => {
    const out = rules('$pageview', { gclid: null });
    expect(out.$set).toEqual({ gclid: null });
    expect(out.$set_once).toEqual({});
  });

  it('does not lift the host OS of server SDKs', () => {
    const out = rules('e', { $is_server: true, $os: 'Linux', $os_version: '6', $browser: 'x' });
    expect(out.$set).toEqual({ $browser: 'x' });
    expect(out.$set_once).toEqual({ $initial_browser: 'x' });
  });

  it('treats $os_name as an alias of $os for the first-touch OS only', () => {
    const out = rules('e', { $os_name: 'iOS' });
    expect(out.$set).toEqual({});
    expect(out.$set_once).toEqual({ $initial_os: 'iOS' });
  });

  it('leaves events without such properties untouched', () => {
    expect(rules('e', { plan: 'pro' })).toEqual({ plan: 'pro' });
  });

  it.each([
    ['$process_person_profile: false', 'e', { $process_person_profile: false }],
    ['$groupidentify', '$groupidentify', {}],
  ])('strips person updates from personless events (%s)', (_label, event, extra) => {
    expect(rules(event, { ...extra, $browser: 'x', $set: { a: 1 }, $set_once: { b: 2 }, $unset: ['c'] })).toEqual({ ...extra, $browser: 'x' });
  });

  it('never updates persons from $exception or $$heatmap events', () => {
    expect(rules('$exception', { $browser: 'x' })).toEqual({ $browser: 'x' });
  });
});

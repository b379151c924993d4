import { ingestBatch } from '../support/ingestion';
import { startTestApp, TestApp } from '../support/test-app';
import { filterQuery as q, followUrl } from '../support/insights';

/**
 * Element and session filters, and the 400 every malformed filter gets, computed by hand from these events
 * (UTC project, Jan 1–2 2026; elements clicked first, as posthog-js sends them):
 *
 *   ann  session s1: $pageview 09:58 https://x.io/home; $autocapture 10:00 on
 *        button.btn.primary#signup "Sign up" (nth-child 2) < div.hero < body                      (s1: 120 s)
 *   ben  session s2: $pageview 10:30 https://x.io/pricing; $autocapture 11:00 on
 *        a.nav href=/pricing "Pricing" < nav.top < body                                          (s2: 1800 s)
 *   cal  session s3, Jan 2: $autocapture 10:00 on span "Sign up now" < button.btn < div.hero < body;
 *        $pageview 10:00:05 https://x.io/blog                                                    (s3: 5 s)
 *   dan  no session, Jan 2: $autocapture 11:00 on button.btn.secondary "Cancel" < form < body
 *
 * $autocaptures per day: Jan 1 ann, ben; Jan 2 cal, dan.
 */
describe('Insights: element and session filters, malformed filters', () => {
  let t: TestApp;
  let base: string;
  const el = (tag_name: string, extra: Record<string, unknown> = {}) => ({ tag_name, nth_child: 1, nth_of_type: 1, ...extra });
  const click = (distinct_id: string, timestamp: string, elements: unknown[], session?: string) => ({
    event: '$autocapture', distinct_id, timestamp, properties: { $event_type: 'click', $elements: elements, ...(session ? { $session_id: session } : {}) },
  });
  const view = (distinct_id: string, timestamp: string, url: string, session: string) => ({
    event: '$pageview', distinct_id, timestamp, properties: { $current_url: url, $pathname: new URL(url).pathname, $session_id: session },
  });
  const clicks = async (properties: unknown[]) => {
    const res = await t.http.get(`${base}/insights/trend/?${q({ events: [{ id: '$autocapture' }], date_from: '2026-01-01', date_to: '2026-01-02', properties })}`);
    expect(res.status).toBe(200);
    return res.body.result[0];
  };
  const element = (key: string, value: unknown, operator = 'exact') => [{ type: 'element', key, value, operator }];
  /** The events list's $autocaptures with these filters, per day: the PostgreSQL compiler of the same rules. */
  const listedPerDay = async (properties: unknown[]) => {
    const res = await t.http.get(`${base}/events/?${q({ event: '$autocapture', after: '2026-01-01T00:00:00Z', before: '2026-01-03T00:00:00Z', properties })}`);
    expect(res.status).toBe(200);
    const days = res.body.results.map((e: { timestamp: string }) => e.timestamp.slice(0, 10));
    return ['2026-01-01', '2026-01-02'].map((day) => days.filter((d: string) => d === day).length);
  };

  beforeAll(async () => {
    t = await startTestApp({ env: { ROLE: 'all' } });
    base = `/api/projects/${t.keys.projectId}`;
    await ingestBatch(t, t.keys.projectApiKey, [
      view('ann', '2026-01-01T09:58:00Z', 'https://x.io/home', 's1'),
      click('ann', '2026-01-01T10:00:00Z', [el('button', { attr__class: 'btn primary', attr__id: 'signup', $el_text: 'Sign up', nth_child: 2 }), el('div', { attr__class: 'hero' }), el('body')], 's1'),
      view('ben', '2026-01-01T10:30:00Z', 'https://x.io/pricing', 's2'),
      click('ben', '2026-01-01T11:00:00Z', [el('a', { attr__class: 'nav', attr__href: '/pricing', $el_text: 'Pricing' }), el('nav', { attr__class: 'top' }), el('body')], 's2'),
      click('cal', '2026-01-02T10:00:00Z', [el('span', { $el_text: 'Sign up now' }), el('button', { attr__class: 'btn' }), el('div', { attr__class: 'hero' }), el('body')], 's3'),
      view('cal', '2026-01-02T10:00:05Z', 'https://x.io/blog', 's3'),
      click('dan', '2026-01-02T11:00:00Z', [el('button', { attr__class: 'btn secondary', $el_text: 'Cancel' }), el('form'), el('body')]),
    ]);
  });
  afterAll(() => t.close());

  describe('element filters', () => {
    it.each([
      ['text exact', element('text', 'Sign up'), [1, 0]],
      ['text icontains, ignoring case', element('text', 'sign UP', 'icontains'), [1, 1]],
      // As in PostHog, the pattern stands inside `text="…"`, so it matches the whole text.
      ['text regex', element('text', 'Sign.*', 'regex'), [1, 1]],
      ['text is_not', element('text', 'Sign up', 'is_not'), [1, 2]],
      ['text in a list of values', element('text', ['Pricing', 'Cancel']), [1, 1]],
      ['href exact', element('href', '/pricing'), [1, 0]],
      ['href is_set', element('href', null, 'is_set'), [1, 0]],
      ['tag_name on any element of the chain', element('tag_name', 'button'), [1, 2]],
      ['a selector with a class', element('selector', 'button.btn'), [1, 2]],
      ['a selector with two classes in any order', element('selector', '.primary.btn'), [1, 0]],
      ['a direct child', element('selector', 'div.hero > button'), [1, 1]],
      ['no direct child where an element sits between', element('selector', 'div.hero > span'), [0, 0]],
      ['a descendant', element('selector', 'div.hero span'), [0, 1]],
      ['an id', element('selector', '#signup'), [1, 0]],
      ['an attribute', element('selector', '[href="/pricing"]'), [1, 0]],
      ['a position', element('selector', 'button:nth-child(2)'), [1, 0]],
      ['a selector is_not', element('selector', 'div.hero button', 'is_not'), [1, 1]],
    ])('counts the clicks matching %s, in insights and on the events list', async (_, properties, expected) => {
      expect((await clicks(properties)).data).toEqual(expected);
      expect(await listedPerDay(properties)).toEqual(expected);
    });

    it('lists the persons behind a point filtered by element, and answers the same through the query API', async () => {
      const properties = element('selector', 'div.hero button');
      const point = await clicks(properties);
      expect((await followUrl(t, point.persons_urls[1].url)).results[0].people.map((p: { distinct_ids: string[] }) => p.distinct_ids[0])).toEqual(['cal']);
      const res = await t.http.post(`${base}/query/`, {
        query: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$autocapture' }], dateRange: { date_from: '2026-01-01', date_to: '2026-01-02' }, properties },
      });
      expect(res.body.results[0].data).toEqual([1, 1]);
    });
  });

  describe('session filters', () => {
    const session = (key: string, value: unknown, operator = 'exact') => [{ type: 'session', key, value, operator }];

    it.each([
      ['a duration over a minute (s1 120 s, s2 1800 s)', session('$session_duration', 60, 'gt'), [2, 0]],
      ['a short session (s3 5 s)', session('$session_duration', 10, 'lt'), [0, 1]],
      ['the entry URL', session('$entry_current_url', 'https://x.io/pricing'), [1, 0]],
      ['the path a session ended on', session('$end_pathname', '/blog'), [0, 1]],
      ['a session with a pageview', session('$pageview_count', 1, 'gte'), [2, 1]],
    ])('counts the clicks in sessions with %s', async (_, properties, expected) => {
      expect((await clicks(properties)).data).toEqual(expected);
    });

    it('refuses them on the events list with a 400 that names what the list reads', async () => {
      const res = await t.http.get(`${base}/events/?${q({ properties: session('$session_duration', 60, 'gt') })}`);
      expect([res.status, res.body.detail]).toEqual([400, 'Property filters of type "session" are not supported here: use event, person, cohort, element (insights read every type).']);
    });
  });

  describe('malformed filters', () => {
    const invalid = (detail: string) => ({ type: 'validation_error', code: 'invalid_input', detail: `properties: ${detail}`, attr: 'properties' });
    const OPERATORS = 'exact, is_not, icontains, not_icontains, regex, not_regex, gt, gte, lt, lte, is_set, is_not_set, is_date_exact, is_date_before, is_date_after, '
      + 'starts_with, not_starts_with, ends_with, not_ends_with, icontains_multi, not_icontains_multi, semver_eq, semver_neq, semver_gt, semver_gte, semver_lt, '
      + 'semver_lte, semver_tilde, semver_caret, semver_wildcard';
    const cases: Array<[string, unknown[], ReturnType<typeof invalid>]> = [
      ['an operator spelled otherwise', [{ key: '$browser', value: 'Chrome', operator: 'equals' }], invalid(`Unknown operator "equals". Did you mean exact? Use one of ${OPERATORS}.`)],
      ['a misspelt operator', [{ key: '$browser', value: 'Chrome', operator: 'icontain' }], invalid(`Unknown operator "icontain". Did you mean icontains? Use one of ${OPERATORS}.`)],
      ['a misspelt type', [{ key: '$browser', value: 'Chrome', type: 'evnt' }], invalid('Unknown property filter type "evnt". Did you mean event? Use one of event, person, group, cohort, element, session.')],
      ['a HogQL filter', [{ key: 'properties.$browser = \'Chrome\'', type: 'hogql' }], invalid('Property filters of type "hogql" are not supported by this server: use one of event, person, group, cohort, element, session.')],
      ['an element key that does not exist', [{ key: 'class', value: 'btn', type: 'element' }], invalid('Element filters read text, href, tag_name, selector, not "class".')],
      ['an operator a selector does not take', [{ key: 'selector', value: 'button', type: 'element', operator: 'icontains' }], invalid('Operator "icontains" does not apply to element filters on selector. Use one of exact, is_not.')],
      ['a group filter without its group type', [{ key: 'name', value: 'Acme', type: 'group' }], invalid('Group filters need group_type_index (0–4): the group type "name" belongs to.')],
    ];

    it.each(cases)('refuses %s on the legacy route', async (_, properties, expected) => {
      const res = await t.http.get(`${base}/insights/trend/?${q({ events: [{ id: '$autocapture' }], properties })}`);
      expect([res.status, res.body]).toEqual([400, expected]);
    });

    it.each(cases)('refuses %s on the query API', async (_, properties, expected) => {
      const res = await t.http.post(`${base}/query/`, { query: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$autocapture', properties }] } });
      expect([res.status, res.body]).toEqual([400, expected]);
    });

    it('refuses the same on the events list, with the same words', async () => {
      const res = await t.http.get(`${base}/events/?${q({ properties: [{ key: '$browser', value: 'Chrome', operator: 'equals' }] })}`);
      expect(res.status).toBe(400);
      expect(res.body.detail).toContain('Unknown operator "equals". Did you mean exact?');
    });
  });
});

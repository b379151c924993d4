import { ingestBatch } from '../support/ingestion';
import { startTestApp, TestApp } from '../support/test-app';
import { filterQuery as q, followUrl } from '../support/insights';

/**
 * Actions: the management API, and action series in every insight, with numbers computed by hand from these events
 * (UTC project, Jan 1–3 2026):
 *
 *   ann  Jan 1 $pageview https://x.io/pricing; $autocapture on button.cta "Buy now" < div.plans; signed_up
 *   ben  Jan 1 $pageview https://x.io/blog; Jan 2 $pageview https://x.io/pricing?ref=blog; $autocapture on a "Docs" href=/docs
 *   cal  Jan 2 $autocapture on button.cta "Buy later" < div.plans; Jan 3 signed_up (plan pro)
 *
 * Action "Visited pricing": $pageview with url containing /pricing → ann Jan 1, ben Jan 2.
 * Action "Clicked CTA": $autocapture with selector `div.plans > button.cta` → ann Jan 1, cal Jan 2.
 */
describe('Actions', () => {
  let t: TestApp;
  let base: string;
  const at = (event: string, distinct_id: string, timestamp: string, properties: Record<string, unknown> = {}) => ({ event, distinct_id, timestamp, properties });
  const el = (tag_name: string, extra: Record<string, unknown> = {}) => ({ tag_name, nth_child: 1, nth_of_type: 1, ...extra });
  const click = (distinct_id: string, timestamp: string, elements: unknown[]) => at('$autocapture', distinct_id, timestamp, { $event_type: 'click', $elements: elements });
  const create = async (body: Record<string, unknown>) => {
    const res = await t.http.post(`${base}/actions/`, body);
    expect(res.status).toBe(201);
    return res.body;
  };
  const trend = async (params: Record<string, unknown>) => {
    const res = await t.http.get(`${base}/insights/trend/?${q({ date_from: '2026-01-01', date_to: '2026-01-03', ...params })}`);
    expect(res.status).toBe(200);
    return res.body;
  };
  /** The events list's events of an action (`action_id`), per day: the PostgreSQL compiler of the same steps. */
  const listedPerDay = async (actionId: number) => {
    const res = await t.http.get(`${base}/events/?action_id=${actionId}&after=2026-01-01T00:00:00Z&before=2026-01-04T00:00:00Z`);
    expect(res.status).toBe(200);
    const days = res.body.results.map((e: { timestamp: string }) => e.timestamp.slice(0, 10));
    return ['2026-01-01', '2026-01-02', '2026-01-03'].map((day) => days.filter((d: string) => d === day).length);
  };
  const names = (body: { results: Array<{ people: Array<{ distinct_ids: string[] }> }> }) => body.results[0].people.map((p) => p.distinct_ids[0]).sort();
  let pricing: { id: number };
  let cta: { id: number };

  beforeAll(async () => {
    t = await startTestApp({ env: { ROLE: 'all' } });
    base = `/api/projects/${t.keys.projectId}`;
    await ingestBatch(t, t.keys.projectApiKey, [
      at('$pageview', 'ann', '2026-01-01T10:00:00Z', { $current_url: 'https://x.io/pricing' }),
      click('ann', '2026-01-01T10:01:00Z', [el('button', { attr__class: 'cta', $el_text: 'Buy now' }), el('div', { attr__class: 'plans' }), el('body')]),
      at('signed_up', 'ann', '2026-01-01T10:02:00Z'),
      at('$pageview', 'ben', '2026-01-01T11:00:00Z', { $current_url: 'https://x.io/blog' }),
      at('$pageview', 'ben', '2026-01-02T11:00:00Z', { $current_url: 'https://x.io/pricing?ref=blog' }),
      click('ben', '2026-01-02T11:01:00Z', [el('a', { attr__href: '/docs', $el_text: 'Docs' }), el('body')]),
      click('cal', '2026-01-02T12:00:00Z', [el('button', { attr__class: 'cta', $el_text: 'Buy later' }), el('div', { attr__class: 'plans' }), el('body')]),
      at('signed_up', 'cal', '2026-01-03T12:00:00Z', { plan: 'pro' }),
    ]);
    pricing = await create({ name: 'Visited pricing', steps: [{ event: '$pageview', url: '/pricing', url_matching: 'contains' }] });
    cta = await create({ name: 'Clicked CTA', steps: [{ event: '$autocapture', selector: 'div.plans > button.cta' }] });
  });
  afterAll(() => t.close());

  describe('the management API', () => {
    it('answers an action as PostHog serializes it, every step field present', async () => {
      const res = await t.http.get(`${base}/actions/${pricing.id}/`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        id: pricing.id, name: 'Visited pricing', description: '', tags: [], post_to_slack: false, slack_message_format: '', deleted: false,
        is_calculating: false, team_id: t.keys.projectId, is_action: true, pinned_at: null, created_by: { email: expect.any(String) },
        steps: [{ event: '$pageview', url: '/pricing', url_matching: 'contains', properties: null, selector: null, tag_name: null, text: null, text_matching: null, href: null, href_matching: null }],
      });
    });

    it('lists live actions, updates, refuses a taken name, soft-deletes and logs each change', async () => {
      const draft = await create({ name: 'Draft', steps: [{ event: 'signed_up' }] });
      const list = await t.http.get(`${base}/actions/`);
      expect(list.body.results.map((a: { name: string }) => a.name)).toEqual(expect.arrayContaining(['Visited pricing', 'Clicked CTA', 'Draft']));
      const taken = await t.http.patch(`${base}/actions/${draft.id}/`, { name: 'Visited pricing' });
      expect([taken.status, taken.body]).toEqual([400, { type: 'validation_error', code: 'unique', detail: `This project already has an action with this name, ID ${pricing.id}`, attr: 'name' }]);
      const renamed = await t.http.patch(`${base}/actions/${draft.id}/`, { name: 'Signed up', description: 'Anyone signing up' });
      expect(renamed.body).toMatchObject({ name: 'Signed up', description: 'Anyone signing up', steps: [{ event: 'signed_up' }] });
      const before = Date.now() - 1000;
      const pinned = await t.http.patch(`${base}/actions/${draft.id}/`, { pinned_at: '2020-01-01T00:00:00Z' });
      expect(Date.parse(pinned.body.pinned_at)).toBeGreaterThanOrEqual(before);
      expect((await t.http.patch(`${base}/actions/${draft.id}/`, { pinned_at: null })).body.pinned_at).toBeNull();
      expect((await t.http.delete(`${base}/actions/${draft.id}/`)).status).toBe(405);
      expect((await t.http.patch(`${base}/actions/${draft.id}/`, { deleted: true })).body.deleted).toBe(true);
      expect((await t.http.get(`${base}/actions/`)).body.results.map((a: { name: string }) => a.name)).not.toContain('Signed up');
      const activity = await t.http.get(`${base}/actions/${draft.id}/activity/`);
      expect(activity.body.results.map((e: { activity: string }) => e.activity)).toEqual(['deleted', 'updated', 'updated', 'updated', 'created']);
      expect(activity.body.results[3].detail.changes).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'name', before: 'Draft', after: 'Signed up' })]));
    });

    it.each([
      ['no name', { steps: [] }, 'name', 'name is required: what the action is called in insights and lists.'],
      ['steps that are no list', { name: 'x', steps: {} }, 'steps', 'steps must be a list of steps.'],
      ['an unknown matching', { name: 'x', steps: [{ url: '/a', url_matching: 'startswith' }] }, 'steps', 'steps[0].url_matching must be one of contains, regex, exact (got "startswith").'],
      ['a bad regex', { name: 'x', steps: [{ url: '(', url_matching: 'regex' }] }, 'steps', 'steps[0].url is not a valid regular expression (RE2 syntax).'],
      ['an unknown step field', { name: 'x', steps: [{ evnt: '$pageview' }] }, 'steps', 'steps[0] has an unknown field evnt: a step takes event, selector, tag_name, text, href, url, text_matching, href_matching, url_matching, properties.'],
      ['a bad property filter', { name: 'x', steps: [{ event: 'a', properties: [{ key: 'k', value: 1, operator: 'equals' }] }] }, 'steps', 'steps[0].properties: Unknown operator "equals". Did you mean exact? Use one of'],
    ])('refuses %s with a 400 naming the field', async (_, body, attr, detail) => {
      const res = await t.http.post(`${base}/actions/`, body);
      expect(res.status).toBe(400);
      expect(res.body.attr).toBe(attr);
      expect(res.body.detail.startsWith(detail)).toBe(true);
    });
  });

  describe('in insights', () => {
    it('counts an action series by url, labels it with the action and lists its persons', async () => {
      const body = await trend({ actions: [{ id: pricing.id, type: 'actions' }] });
      expect(body.result[0]).toMatchObject({ label: 'Visited pricing', data: [1, 1, 0], action: { id: pricing.id, type: 'actions', name: 'Visited pricing' } });
      expect(names(await followUrl(t, body.result[0].persons_urls[1].url))).toEqual(['ben']);
    });

    it.each([
      ['url exact', [{ event: '$pageview', url: 'https://x.io/pricing', url_matching: 'exact' }], [1, 0, 0]],
      ['url regex', [{ event: '$pageview', url: 'x\\.io/(blog|pricing)$', url_matching: 'regex' }], [2, 0, 0]],
      ['text exact (the default)', [{ event: '$autocapture', text: 'Buy now' }], [1, 0, 0]],
      ['text contains', [{ event: '$autocapture', text: 'buy', text_matching: 'contains' }], [1, 1, 0]],
      ['text regex', [{ event: '$autocapture', text: 'Buy (now|later)', text_matching: 'regex' }], [1, 1, 0]],
      ['href', [{ event: '$autocapture', href: '/docs' }], [0, 1, 0]],
      ['tag_name', [{ event: '$autocapture', tag_name: 'button' }], [1, 1, 0]],
      ['a selector', [{ event: '$autocapture', selector: '.plans .cta' }], [1, 1, 0]],
      ['properties', [{ event: 'signed_up', properties: [{ key: 'plan', value: 'pro', type: 'event' }] }], [0, 0, 1]],
      ['any of several steps', [{ event: 'signed_up' }, { event: '$autocapture', href: '/docs' }], [1, 1, 1]],
      ['a step without an event', [{ url: '/blog', url_matching: 'contains' }], [1, 0, 0]],
      ['no step at all, which matches every event', [], [4, 3, 1]],
      ['an element condition on an event that is no click, which PostHog ignores', [{ event: '$pageview', text: 'Nope' }], [2, 1, 0]],
    ])('matches a step by %s, in insights and on the events list', async (name, steps, expected) => {
      const action = await create({ name: `By ${name}`, steps });
      expect((await trend({ actions: [{ id: action.id }] })).result[0].data).toEqual(expected);
      expect(await listedPerDay(action.id)).toEqual(expected);
    });

    it('mixes action and event series by order, and serves ActionsNode through the query API', async () => {
      const body = await trend({ events: [{ id: 'signed_up', order: 1 }], actions: [{ id: cta.id, order: 0, math: 'dau' }] });
      expect(body.result.map((s: { label: string; data: number[] }) => [s.label, s.data])).toEqual([['Clicked CTA', [1, 1, 0]], ['signed_up', [1, 0, 1]]]);
      const res = await t.http.post(`${base}/query/`, {
        query: { kind: 'TrendsQuery', series: [{ kind: 'ActionsNode', id: cta.id }], dateRange: { date_from: '2026-01-01', date_to: '2026-01-03' } },
      });
      expect(res.body.results[0]).toMatchObject({ label: 'Clicked CTA', data: [1, 1, 0] });
    });

    it('takes actions as funnel steps and exclusions', async () => {
      const steps = { events: [{ id: 'signed_up', order: 1 }], actions: [{ id: pricing.id, order: 0 }] };
      const funnel = await t.http.get(`${base}/insights/funnel/?${q({ ...steps, date_from: '2026-01-01', date_to: '2026-01-03' })}`);
      // ann: pricing then signed_up; ben: pricing only.
      expect(funnel.body.result.map((s: { name: string; count: number; action_id: unknown; type: string }) => [s.name, s.count, s.action_id, s.type])).toEqual([
        ['Visited pricing', 2, pricing.id, 'actions'], ['signed_up', 1, 'signed_up', 'events'],
      ]);
      const excluded = await t.http.get(`${base}/insights/funnel/?${q({
        events: [{ id: '$pageview', order: 0 }, { id: 'signed_up', order: 1 }], exclusions: [{ id: cta.id, type: 'actions', funnel_from_step: 0, funnel_to_step: 1 }],
        date_from: '2026-01-01', date_to: '2026-01-03',
      })}`);
      // ann clicked the CTA between her pageview and signing up.
      expect(excluded.body.result.map((s: { count: number }) => s.count)).toEqual([1, 0]);
    });

    it('takes actions in stickiness, lifecycle and retention', async () => {
      const stickiness = await trend({ actions: [{ id: pricing.id }], shown_as: 'Stickiness' });
      expect(stickiness.result[0].data).toEqual([2, 0, 0]);
      const retention = await t.http.get(`${base}/insights/retention/?${q({
        target_entity: { id: cta.id, type: 'actions' }, returning_entity: { id: 'signed_up', type: 'events' }, period: 'Day', total_intervals: 3, date_to: '2026-01-03',
      })}`);
      // Cohorts Jan 1 (ann: signed up that day), Jan 2 (cal: signed up the next day).
      expect(retention.body.result.map((row: { values: Array<{ count: number }> }) => row.values.map((v) => v.count))).toEqual([[1, 0, 0], [1, 1], [0]]);
    });

    it('refuses an action that does not exist, naming it', async () => {
      const res = await t.http.get(`${base}/insights/trend/?${q({ actions: [{ id: 999999 }] })}`);
      expect([res.status, res.body.attr, res.body.detail]).toEqual([400, 'actions', 'Action 999999 does not exist in this project (or was deleted): the id of an action from /api/projects/:id/actions/.']);
    });
  });
});

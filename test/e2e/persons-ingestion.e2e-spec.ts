import { ingestBatch } from '../support/ingestion';
import { personByDistinctId, personsOf } from '../support/persons';
import { startTestApp, TestApp } from '../support/test-app';

/** Person semantics of ingestion, as PostHog's ingestion applies it, through the real capture path. */
describe('Persons from ingestion', () => {
  let t: TestApp;
  const send = (batch: Array<Record<string, unknown>>) => ingestBatch(t, t.keys.projectApiKey, batch);

  beforeAll(async () => {
    t = await startTestApp({ env: { ROLE: 'all' } });
  });
  afterAll(() => t.close());

  it('applies $set_once, then $set, then $unset, in capture order', async () => {
    await send([
      { event: 'e', distinct_id: 'order', properties: { $set: { plan: 'free', keep: 1 }, $set_once: { first: 'a' } } },
      { event: 'e', distinct_id: 'order', properties: { $set: { plan: 'pro' }, $set_once: { first: 'b', other: 'c' } } },
      { event: '$set', distinct_id: 'order', properties: { $unset: ['keep'] } },
    ]);
    expect((await personByDistinctId(t, 'order'))?.properties).toEqual({ plan: 'pro', first: 'a', other: 'c' });
  });

  it('$identify merges the anonymous id into the identified one (browser shape: top-level $set)', async () => {
    await send([{ event: '$pageview', distinct_id: 'anon-1', properties: { $set: { seen: true, shared: 'anon' } } }]);
    await send([{ event: '$identify', distinct_id: 'user-1', $set: { email: 'u1@example.com' }, properties: { $anon_distinct_id: 'anon-1' } }]);
    const person = await personByDistinctId(t, 'user-1');
    expect(person).toMatchObject({ distinct_ids: ['anon-1', 'user-1'], is_identified: true });
    expect(person?.properties).toEqual({ seen: true, shared: 'anon', email: 'u1@example.com' });
  });

  it('merges two existing persons with the identified person winning shared keys', async () => {
    await send([
      { event: 'e', distinct_id: 'anon-2', properties: { $set: { shared: 'anon', only_anon: 1 } } },
      { event: 'e', distinct_id: 'user-2', properties: { $set: { shared: 'user', only_user: 2 } } },
    ]);
    const before = (await personsOf(t)).length;
    await send([{ event: '$identify', distinct_id: 'user-2', properties: { $anon_distinct_id: 'anon-2' } }]);
    const person = await personByDistinctId(t, 'anon-2');
    expect(person?.distinct_ids).toEqual(['anon-2', 'user-2']);
    expect(person?.properties).toEqual({ shared: 'user', only_anon: 1, only_user: 2 });
    expect((await personsOf(t)).length).toBe(before - 1);
  });

  it('refuses to merge away an already identified person, except with $merge_dangerously', async () => {
    await send([
      { event: '$identify', distinct_id: 'ident-a', properties: { $anon_distinct_id: 'anon-a' } },
      { event: '$identify', distinct_id: 'ident-b', properties: { $anon_distinct_id: 'anon-b' } },
    ]);
    await send([{ event: '$identify', distinct_id: 'ident-a', properties: { $anon_distinct_id: 'ident-b' } }]);
    expect((await personByDistinctId(t, 'ident-a'))?.distinct_ids).toEqual(['anon-a', 'ident-a']);
    const [warning] = await t.sql<{ details: Record<string, string> }>(`SELECT details FROM ingestion_warning WHERE type = 'cannot_merge_already_identified'`);
    expect(warning.details).toEqual({ distinct_id: 'ident-a', other_id: 'ident-b' });
    await send([{ event: '$merge_dangerously', distinct_id: 'ident-a', properties: { alias: 'ident-b' } }]);
    expect((await personByDistinctId(t, 'ident-a'))?.distinct_ids).toEqual(['anon-a', 'anon-b', 'ident-a', 'ident-b']);
  });

  it('$create_alias joins the alias to the person (node and python shapes)', async () => {
    await send([{ event: 'e', distinct_id: 'alias-main', properties: { $set: { a: 1 } } }]);
    await send([{ event: '$create_alias', distinct_id: 'alias-main', properties: { alias: 'alias-other' } }]);
    await send([{ event: '$create_alias', distinct_id: 'py-prev', properties: { alias: 'alias-main' } }]);
    expect((await personByDistinctId(t, 'alias-main'))?.distinct_ids).toEqual(['alias-main', 'alias-other', 'py-prev']);
  });

  it('cuts a long $anon_distinct_id or alias to 200 characters, as distinct ids are, so it merges and is found again', async () => {
    const long = (seed: string) => Array.from({ length: 3000 }, (_, i) => `${seed}${(i * 7919) % 104729}`.slice(-3)).join('').slice(0, 9000);
    const anon = long('a');
    await send([{ event: '$pageview', distinct_id: anon, properties: { $set: { from: 'anon' } } }]);
    await send([{ event: '$identify', distinct_id: 'long-user', properties: { $anon_distinct_id: anon, $set: { email: 'long@example.com' } } }]);
    await send([{ event: '$create_alias', distinct_id: 'long-user', properties: { alias: long('b') } }]);
    const person = await personByDistinctId(t, 'long-user');
    expect([...(person?.distinct_ids ?? [])].sort()).toEqual([anon.slice(0, 200), long('b').slice(0, 200), 'long-user']);
    // A later event under the long id finds the same person, since its distinct_id is cut the same way.
    await send([{ event: 'later', distinct_id: long('b'), properties: { $set: { later: true } } }]);
    expect((await personByDistinctId(t, 'long-user'))?.properties).toEqual({ from: 'anon', email: 'long@example.com', later: true });
    expect(person?.properties).toEqual({ from: 'anon', email: 'long@example.com' });
  });

  it('treats ids that only look like placeholders in another case as real (PostHog: null is case-sensitive)', async () => {
    await send([{ event: '$identify', distinct_id: 'upper-null-user', properties: { $anon_distinct_id: 'NULL' } }]);
    expect((await personByDistinctId(t, 'NULL'))?.distinct_ids).toEqual(['NULL', 'upper-null-user']);
  });

  it.each(['anonymous', 'GUEST', 'null', '0', 'undefined', '[object Object]', '"guest"'])('never merges on the illegal id %s', async (illegal) => {
    await send([{ event: '$identify', distinct_id: `legit-${illegal.length}`, properties: { $anon_distinct_id: illegal } }]);
    expect(await personByDistinctId(t, illegal)).toBeUndefined();
    const warnings = await t.sql(`SELECT 1 FROM ingestion_warning WHERE type = 'cannot_merge_with_illegal_distinct_id' AND details->>'other_id' = $1`, [illegal]);
    expect(warnings.length).toBeGreaterThan(0);
  });

  it('creates no person for $process_person_profile: false events, and ignores their $set', async () => {
    await send([{ event: 'e', distinct_id: 'personless', properties: { $process_person_profile: false, $set: { x: 1 } } }]);
    expect(await personByDistinctId(t, 'personless')).toBeUndefined();
    const [event] = await t.sql<{ person_id: string | null }>(`SELECT person_id FROM event WHERE distinct_id = 'personless'`);
    expect(event.person_id).toBeNull();
  });

  it('drops identity and group events sent with $process_person_profile: false, with a warning', async () => {
    const personless = { $process_person_profile: false };
    await send([
      { event: '$identify', distinct_id: 'pp-user', properties: { ...personless, $anon_distinct_id: 'pp-anon' } },
      { event: '$create_alias', distinct_id: 'pp-user', properties: { ...personless, alias: 'pp-alias' } },
      { event: '$groupidentify', distinct_id: 'pp-user', properties: { ...personless, $group_type: 'pp-type', $group_key: 'pp', $group_set: { x: 1 } } },
      { event: 'pp-kept', distinct_id: 'pp-user', properties: personless },
    ]);
    expect(await t.sql(`SELECT event FROM event WHERE distinct_id = 'pp-user'`)).toEqual([{ event: 'pp-kept' }]);
    const warnings = await t.sql<{ n: number }>(`SELECT count(*)::int AS n FROM ingestion_warning WHERE type = 'invalid_event_when_process_person_profile_is_false'`);
    expect(warnings).toEqual([{ n: 3 }]);
    expect(await t.sql(`SELECT 1 FROM group_type_mapping WHERE group_type = 'pp-type'`)).toEqual([]);
    expect(await personByDistinctId(t, 'pp-user')).toBeUndefined();
  });

  it('identifies a person only by a merge that happens: not by $identify without an anonymous id, with the same id or an illegal one', async () => {
    await send([
      { event: '$identify', distinct_id: 'not-merged-1', properties: { $set: { a: 1 } } },
      { event: '$identify', distinct_id: 'not-merged-2', properties: { $anon_distinct_id: 'not-merged-2' } },
      { event: '$identify', distinct_id: 'not-merged-3', properties: { $anon_distinct_id: 'anonymous' } },
    ]);
    for (const id of ['not-merged-1', 'not-merged-2', 'not-merged-3']) expect(await personByDistinctId(t, id)).toMatchObject({ is_identified: false });
    // Such a person can still be merged into an identified one later, as in PostHog.
    await send([{ event: '$identify', distinct_id: 'merged-later', properties: { $anon_distinct_id: 'not-merged-1' } }]);
    expect(await personByDistinctId(t, 'merged-later')).toMatchObject({ distinct_ids: ['merged-later', 'not-merged-1'], is_identified: true });
  });

  it('merges a numeric $anon_distinct_id as its text', async () => {
    await send([
      { event: 'e', distinct_id: '12345', properties: { $set: { from: 'number' } } },
      { event: '$identify', distinct_id: 'numeric-owner', properties: { $anon_distinct_id: 12345 } },
    ]);
    expect(await personByDistinctId(t, 'numeric-owner')).toMatchObject({ distinct_ids: ['12345', 'numeric-owner'], is_identified: true, properties: { from: 'number' } });
  });

  it('upserts groups from $groupidentify and gives each type an index 0–4', async () => {
    await send([
      { event: '$groupidentify', distinct_id: 'g', properties: { $group_type: 'company', $group_key: 'acme', $group_set: { name: 'Acme', size: 1 } } },
      { event: '$groupidentify', distinct_id: 'g', properties: { $group_type: 'company', $group_key: 'acme', $group_set: { size: 5 } } },
      { event: '$groupidentify', distinct_id: 'g', properties: { $group_type: 'team', $group_key: 42 } },
    ]);
    expect(await t.sql('SELECT group_type, group_type_index FROM group_type_mapping ORDER BY group_type_index')).toEqual([
      { group_type: 'company', group_type_index: 0 },
      { group_type: 'team', group_type_index: 1 },
    ]);
    expect(await t.sql('SELECT group_type_index, group_key, properties FROM "group" ORDER BY group_type_index')).toEqual([
      { group_type_index: 0, group_key: 'acme', properties: { name: 'Acme', size: 5 } },
      { group_type_index: 1, group_key: '42', properties: {} },
    ]);
  });

  it('drops a $groupidentify whose group key is longer than 400 characters, with a warning, and keeps one of 400', async () => {
    await send([
      { event: '$groupidentify', distinct_id: 'long-key', properties: { $group_type: 'company', $group_key: 'k'.repeat(401) } },
      { event: '$groupidentify', distinct_id: 'long-key', properties: { $group_type: 'company', $group_key: 'k'.repeat(400) } },
    ]);
    expect(await t.sql(`SELECT length(properties->>'$group_key') AS length FROM event WHERE distinct_id = 'long-key'`)).toEqual([{ length: 400 }]);
    expect(await t.sql(`SELECT length(group_key) AS length FROM "group" WHERE length(group_key) >= 400`)).toEqual([{ length: 400 }]);
    expect(await t.sql(`SELECT details->>'group_type' AS type FROM ingestion_warning WHERE type = 'group_key_too_long'`)).toEqual([{ type: 'company' }]);
  });

  it('drops a $groupidentify whose $group_set is not an object, with a warning; a null $group_set is an empty one', async () => {
    const identify = (key: string, set: unknown) => ({ event: '$groupidentify', distinct_id: 'bad-set', properties: { $group_type: 'company', $group_key: key, $group_set: set } });
    await send([identify('set-text', 'plan=pro'), identify('set-list', ['pro']), identify('set-number', 5), identify('set-true', true), identify('set-null', null), identify('set-object', { plan: 'pro' })]);
    expect(await t.sql(`SELECT properties->>'$group_key' AS key FROM event WHERE distinct_id = 'bad-set' ORDER BY key`)).toEqual([{ key: 'set-null' }, { key: 'set-object' }]);
    expect(await t.sql(`SELECT group_key, properties FROM "group" WHERE group_key LIKE 'set-%' ORDER BY group_key`)).toEqual([
      { group_key: 'set-null', properties: {} },
      { group_key: 'set-object', properties: { plan: 'pro' } },
    ]);
    const warnings = await t.sql<{ reason: string }>(`SELECT details->>'reason' AS reason FROM ingestion_warning WHERE type = 'invalid_group_identify' AND details->>'distinct_id' = 'bad-set'`);
    expect(warnings).toEqual(Array(4).fill({ reason: '$group_set is not an object' }));
  });

  it('records event and property definitions with detected types', async () => {
    await send([{ event: 'signed_up', distinct_id: 'def', properties: { d_plan: 'pro', d_seats: 3, d_trial: true, d_at: '2026-01-02T03:04:05Z', $set: { d_email: 'x@y.z' } } }]);
    const events = await t.sql<{ name: string }>(`SELECT name FROM event_definition WHERE name = 'signed_up'`);
    expect(events).toHaveLength(1);
    const properties = await t.sql(`SELECT name, type, property_type, is_numerical FROM property_definition WHERE name LIKE 'd\\_%' ORDER BY name`);
    expect(properties).toEqual([
      { name: 'd_at', type: 1, property_type: 'DateTime', is_numerical: false },
      { name: 'd_email', type: 2, property_type: 'String', is_numerical: false },
      { name: 'd_plan', type: 1, property_type: 'String', is_numerical: false },
      { name: 'd_seats', type: 1, property_type: 'Numeric', is_numerical: true },
      { name: 'd_trial', type: 1, property_type: 'Boolean', is_numerical: false },
    ]);
    const [project] = await t.sql<{ ingested_event: boolean }>('SELECT ingested_event FROM project WHERE id = $1', [t.keys.projectId]);
    expect(project.ingested_event).toBe(true);
  });

  it('copies page, device and campaign properties to the person: latest in place, first touch as $initial_*', async () => {
    await send([{ event: '$pageview', distinct_id: 'touch', properties: { $browser: 'Firefox', utm_source: 'ads', gclid: null } }]);
    await send([{ event: '$pageview', distinct_id: 'touch', properties: { $browser: 'Chrome', utm_source: 'news' } }]);
    expect((await personByDistinctId(t, 'touch'))?.properties).toEqual({
      $browser: 'Chrome',
      utm_source: 'news',
      gclid: null,
      $initial_browser: 'Firefox',
      $initial_utm_source: 'ads',
    });
  });

  it('stores personless events without person updates, and never updates persons from $exception', async () => {
    await send([{ event: 'e', distinct_id: 'quiet', properties: { $process_person_profile: false, $browser: 'x', $set: { a: 1 } } }]);
    const [stored] = await t.sql<{ properties: Record<string, unknown> }>(`SELECT properties FROM event WHERE distinct_id = 'quiet'`);
    expect(stored.properties.$set).toBeUndefined();
    await send([{ event: 'e', distinct_id: 'crashy', properties: { $set: { ok: true } } }]);
    await send([{ event: '$exception', distinct_id: 'crashy', properties: { $set: { ok: false }, $browser: 'x' } }]);
    expect((await personByDistinctId(t, 'crashy'))?.properties).toEqual({ ok: true });
  });
});

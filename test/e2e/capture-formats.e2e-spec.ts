import { gzipSync } from 'node:zlib';
import LZString from 'lz-string';
import { MembershipLevel } from '../../src/modules/organizations/organization-membership.entity';
import { ProvisioningService } from '../../src/modules/provisioning/provisioning.service';
import { sendJson, sendRaw } from '../support/capture-client';
import { waitForRows } from '../support/ingestion';
import { startTestApp, TestApp } from '../support/test-app';
import { TEST_METRICS_TOKEN } from '../support/test-env';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

/** Every body shape and encoding the PostHog SDKs send lands as the same stored event. */
describe('Capture body formats', () => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startTestApp({ env: { ROLE: 'all', METRICS_TOKEN: TEST_METRICS_TOKEN } });
    key = t.keys.projectApiKey;
  });
  afterAll(() => t.close());

  const cases: Array<[string, () => Promise<{ status: number; text: string }>, string]> = [
    ['single event JSON on /capture/', () => sendJson(t, '/capture/', { api_key: key, event: 'f1', properties: { distinct_id: 'd1' } }), 'f1'],
    ['{api_key, batch} on /batch/ gzipped by Content-Encoding (posthog-node)', () =>
      sendRaw(t, '/batch/', gzipSync(JSON.stringify({ api_key: key, batch: [{ event: 'f2', distinct_id: 'd2' }], sent_at: new Date().toISOString() })), {
        'content-type': 'application/json',
        'content-encoding': 'gzip',
      }), 'f2'],
    ['gzip as text/plain with no hint (posthog-js ≥ 1.398)', () =>
      sendRaw(t, '/e/', gzipSync(JSON.stringify({ api_key: key, batch: [{ event: 'f3', properties: { distinct_id: 'd3', token: key } }] })), { 'content-type': 'text/plain' }), 'f3'],
    ['gzip with ?compression=gzip-js (older posthog-js)', () =>
      sendRaw(t, '/e/?compression=gzip-js&ver=1.200.0', gzipSync(JSON.stringify([{ event: 'f4', properties: { distinct_id: 'd4', token: key } }])), { 'content-type': 'text/plain' }), 'f4'],
    ['array of events on /i/v0/e/', () => sendJson(t, '/i/v0/e/', [{ event: 'f5', properties: { distinct_id: 'd5', token: key } }]), 'f5'],
    ['data=<base64> form with ?compression=base64 (beacon fallback)', () =>
      sendRaw(t, '/e/?compression=base64', form({ data: b64({ event: 'f6', properties: { distinct_id: 'd6', token: key } }) }), FORM), 'f6'],
    ['data=<lz64> form with compression=lz64', () =>
      sendRaw(t, '/capture/', form({ data: LZString.compressToBase64(JSON.stringify({ event: 'f7', api_key: key, distinct_id: 'd7' })), compression: 'lz64' }), FORM), 'f7'],
    ['GET with ?data=<base64>', () => sendRaw(t, `/capture/?data=${encodeURIComponent(b64({ event: 'f8', api_key: key, distinct_id: 'd8' }))}`, undefined, {}, 'GET'), 'f8'],
    ['no Content-Type at all', () => sendRaw(t, '/track/', JSON.stringify({ event: 'f9', properties: { token: key, distinct_id: 'd9' } })), 'f9'],
    ['application/octet-stream holding JSON', () => sendRaw(t, '/capture/', JSON.stringify({ event: 'f10', api_key: key, distinct_id: 'd10' }), { 'content-type': 'application/octet-stream' }), 'f10'],
    ['project key in the query string', () => sendJson(t, `/capture/?token=${key}`, { event: 'f11', distinct_id: 'd11' }), 'f11'],
    ['$token at the top level', () => sendJson(t, '/e/', { $token: key, event: 'f12', distinct_id: 'd12' }), 'f12'],
  ];

  it.each(cases)('accepts %s', async (_label, send, eventName) => {
    const res = await send();
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toEqual({ status: 1 });
    const [row] = await waitForRows<{ event: string; distinct_id: string }>(t, 'SELECT event, distinct_id FROM event WHERE event = $1', [eventName], 1);
    expect(row.distinct_id).toBe(eventName.replace('f', 'd'));
  });

  it('turns an event-less /engage body into $identify', async () => {
    const res = await sendJson(t, '/engage/', { $token: key, distinct_id: 'engaged', $set: { plan: 'pro' } });
    expect(res.status).toBe(200);
    await waitForRows(t, `SELECT 1 FROM event WHERE event = '$identify' AND distinct_id = 'engaged'`, [], 1);
    const [person] = await waitForRows<{ properties: Record<string, unknown> }>(
      t,
      `SELECT p.properties FROM person p JOIN person_distinct_id d ON d.person_id = p.id WHERE d.distinct_id = 'engaged'`,
      [],
      1,
    );
    expect(person.properties).toEqual({ plan: 'pro' });
  });

  it('answers ?beacon=1 with 204 and stores the event', async () => {
    const res = await sendJson(t, '/e/?beacon=1', { api_key: key, event: 'beaconed', distinct_id: 'b1' });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    await waitForRows(t, `SELECT 1 FROM event WHERE event = 'beaconed'`, [], 1);
  });

  it('accepts a personal API key with project_id in place of the project key', async () => {
    const res = await sendJson(t, '/capture/', { api_key: t.keys.personalApiKey, project_id: t.keys.projectId, event: 'via_personal', distinct_id: 'p1' });
    expect(res.status).toBe(200);
    await waitForRows(t, `SELECT 1 FROM event WHERE event = 'via_personal'`, [], 1);
  });

  it('stores a large batch sent with a personal API key and project_id: the payload worker’s jobs, partitioned again by the project’s key', async () => {
    const padding = 'p'.repeat(200_000);
    const batch = Array.from({ length: 8 }, (_, i) => ({ event: 'large_personal', distinct_id: `lp-${i % 3}`, properties: { padding, i } }));
    const res = await sendJson(t, '/batch/', { api_key: t.keys.personalApiKey, project_id: t.keys.projectId, batch });
    expect(res.status).toBe(200);
    const rows = await waitForRows<{ i: number }>(t, `SELECT (properties->>'i')::int AS i FROM event WHERE event = 'large_personal' AND properties->>'padding' = $1 ORDER BY 1`, [padding], 8);
    expect(rows.map((row) => row.i)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it('answers a large payload’s body errors only after its key is checked, as for a small one', async () => {
    const body = (apiKey: string) => ({ api_key: apiKey, batch: 'b'.repeat(1_200_000) });
    const unknown = await sendJson(t, '/batch/', body('phc_NotAKeyOfThisService000000000000000000'));
    expect(unknown.status).toBe(401);
    expect(JSON.parse(unknown.text).code).toBe('invalid_api_key');
    const known = await sendJson(t, '/batch/', body(key));
    expect(known.status).toBe(400);
    expect(JSON.parse(known.text)).toEqual({ type: 'validation_error', code: 'invalid_payload', detail: 'Malformed request data: "batch" must be a list of events, got a string', attr: null });
  });

  it('refuses a personal key without project_id, or for a project it cannot access', async () => {
    const missing = await sendJson(t, '/capture/', { api_key: t.keys.personalApiKey, event: 'x', distinct_id: 'p' });
    expect(missing.status).toBe(400);
    expect(JSON.parse(missing.text)).toEqual({ type: 'validation_error', code: 'invalid_project', detail: `Invalid Project ID. A personal API key (phx_) was sent as the project API key: SDKs and capture take the project API key (phc_). The project API key is printed on the first boot and is the "api_token" of GET /api/projects/@current/ (or \`npm run cli -- projects list\`). To send with a personal key instead, add "project_id".`, attr: 'project_id' });
    const provisioning = t.app.get(ProvisioningService);
    await provisioning.createUser({ email: 'stranger@example.com', level: MembershipLevel.Member });
    const other = await provisioning.createOrganization('Other', 'stranger@example.com');
    const denied = await sendJson(t, '/capture/', { api_key: t.keys.personalApiKey, project_id: other.project.id, event: 'x', distinct_id: 'p' });
    expect(denied.status).toBe(401);
    expect(JSON.parse(denied.text)).toEqual({ type: 'authentication_error', code: 'invalid_personal_api_key', detail: 'Invalid Personal API key.', attr: null });
    const bad = await sendJson(t, '/capture/', { api_key: 'phx_notARealKey0000000000000000', project_id: 1, event: 'x', distinct_id: 'p' });
    expect(bad.status).toBe(401);
    expect(JSON.parse(bad.text).code).toBe('invalid_personal_api_key');
  });

  it('asks a personal key for the scopes capture writes with (query:write, person:write), naming the one missing', async () => {
    const provisioning = t.app.get(ProvisioningService);
    const readOnly = await provisioning.createPersonalKey({ email: 'admin@localhost', label: 'read', scopes: ['query:read', 'person:read'], projectIds: null });
    const eventsOnly = await provisioning.createPersonalKey({ email: 'admin@localhost', label: 'events', scopes: ['query:write'], projectIds: null });
    const writer = await provisioning.createPersonalKey({ email: 'admin@localhost', label: 'write', scopes: ['query:write', 'person:write'], projectIds: null });
    const missing = (scope: string) => ({ type: 'authentication_error', code: 'permission_denied', detail: `API key missing required scope '${scope}'`, attr: null });
    const send = (apiKey: string, event: string) => sendJson(t, '/capture/', { api_key: apiKey, project_id: t.keys.projectId, event, distinct_id: 'p2' });
    const refused = [await send(readOnly, 'read_only_capture'), await send(eventsOnly, 'events_only_capture')];
    expect(refused.map((res) => [res.status, JSON.parse(res.text)])).toEqual([[403, missing('query:write')], [403, missing('person:write')]]);
    expect((await send(writer, 'writer_capture')).status).toBe(200);
    await waitForRows(t, `SELECT 1 FROM event WHERE event = 'writer_capture'`, [], 1);
    expect(await t.sql(`SELECT event FROM event WHERE event IN ('read_only_capture', 'events_only_capture')`)).toEqual([]);
  });

  it('echoes the Origin with credentials on replies and preflights', async () => {
    const preflight = await sendRaw(t, '/e/', undefined, { origin: 'https://app.example', 'access-control-request-headers': 'content-type' }, 'OPTIONS');
    expect(preflight.status).toBe(200);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(preflight.headers.get('access-control-allow-credentials')).toBe('true');
    expect(preflight.headers.get('access-control-allow-headers')).toBe('content-type');
    const error = await sendJson(t, '/e/', { event: 'x' }, { origin: 'https://app.example' });
    expect(error.status).toBe(401);
    expect(error.headers.get('access-control-allow-origin')).toBe('https://app.example');
  });

  it('does not reflect arbitrary origins on the management API', async () => {
    const res = await t.http.get('/api/users/@me/', { headers: { origin: 'https://evil.example' } });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('keeps the client uuid, records $ip and merges top-level $set into properties', async () => {
    const uuid = '01890f9e-7d1c-7a3b-8c2d-4e5f6a7b8c9d';
    await sendJson(t, '/capture/', { api_key: key, event: 'shaped', distinct_id: 'shape', uuid, $set: { a: 1 }, properties: { $set: { a: 0, b: 2 } } });
    const [row] = await waitForRows<{ uuid: string; properties: Record<string, unknown> }>(t, `SELECT uuid::text, properties FROM event WHERE event = 'shaped'`, [], 1);
    expect(row.uuid).toBe(uuid);
    expect(row.properties.$set).toEqual({ a: 1, b: 2 });
    expect(row.properties.$ip).toBe('127.0.0.1');
  });

  it("stores Python's NaN and Infinity as null, and leaves the same words inside strings alone (posthog-python)", async () => {
    const text = `{"api_key": "${key}", "batch": [{"event": "python-floats", "distinct_id": "py", "properties": {"ratio": NaN, "max": Infinity, "min": -Infinity, "note": "NaN, Infinity \\" -Infinity", "kept": 1.5}}]}`;
    const res = await sendRaw(t, '/batch/', text, { 'content-type': 'application/json' });
    expect(res.status).toBe(200);
    const [row] = await waitForRows<{ properties: Record<string, unknown> }>(t, `SELECT properties FROM event WHERE event = 'python-floats'`, [], 1);
    expect(row.properties).toMatchObject({ ratio: null, max: null, min: null, note: 'NaN, Infinity " -Infinity', kept: 1.5 });
  });

  it('still refuses a body that is malformed for another reason besides NaN', async () => {
    const res = await sendRaw(t, '/batch/', `{"api_key": "${key}", "batch": [{"event": "x", "properties": {"a": NaN,}}]}`, { 'content-type': 'application/json' });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text)).toMatchObject({ type: 'validation_error', code: 'invalid_payload' });
  });

  it('removes $performance_event events without a trace, and fills an empty or null $ip from the connection', async () => {
    const res = await sendJson(t, '/batch/', {
      api_key: key,
      batch: [
        { event: '$performance_event', distinct_id: 'perf', properties: { $performance_raw: '[]' } },
        { event: 'ip-null', distinct_id: 'perf', properties: { $ip: null } },
        { event: 'ip-empty', distinct_id: 'perf', properties: { $ip: '' } },
      ],
    });
    expect(res.status).toBe(200);
    const rows = await waitForRows<{ event: string; ip: string }>(t, `SELECT event, properties->>'$ip' AS ip FROM event WHERE distinct_id = 'perf' ORDER BY event`, [], 2);
    expect(rows).toEqual([
      { event: 'ip-empty', ip: '127.0.0.1' },
      { event: 'ip-null', ip: '127.0.0.1' },
    ]);
    const only = await sendJson(t, '/capture/', { api_key: key, event: '$performance_event', distinct_id: 'perf' });
    expect([only.status, JSON.parse(only.text)]).toEqual([200, { status: 1 }]);
    expect(await t.sql(`SELECT count(*)::int AS n FROM ingestion_warning WHERE details::text LIKE '%performance_event%'`)).toEqual([{ n: 0 }]);
  });

  it('stores autocapture $elements as an elements_chain', async () => {
    await sendJson(t, '/e/', {
      api_key: key,
      event: '$autocapture',
      distinct_id: 'clicker',
      properties: { $elements: [{ tag_name: 'button', attr__class: 'btn primary', $el_text: 'Buy', nth_child: 1, nth_of_type: 1 }, { tag_name: 'div' }] },
    });
    const [event] = await waitForRows<{ elements_chain: string; properties: Record<string, unknown> }>(
      t,
      `SELECT elements_chain, properties FROM event WHERE event = '$autocapture'`,
      [],
      1,
    );
    expect(event.elements_chain).toBe('button.btn.primary:attr__class="btn primary"nth-child="1"nth-of-type="1"text="Buy";div:');
    expect(event.properties.$elements).toBeUndefined();
  });

  it('corrects client clock skew with sent_at and honours offset', async () => {
    const clientNow = Date.now() - 60 * 60 * 1000; // the client clock is an hour slow
    const before = Date.now();
    await sendJson(t, '/batch/', {
      api_key: key,
      sent_at: new Date(clientNow).toISOString(),
      batch: [
        { event: 'skewed', distinct_id: 's', timestamp: new Date(clientNow - 10_000).toISOString() },
        { event: 'offset', distinct_id: 's', offset: 5000 },
      ],
    });
    const after = Date.now();
    const rows = await waitForRows<{ event: string; timestamp: Date }>(t, `SELECT event, timestamp FROM event WHERE event IN ('skewed', 'offset')`, [], 2);
    const byName = Object.fromEntries(rows.map((row) => [row.event, new Date(row.timestamp).getTime()]));
    expect(byName.skewed).toBeGreaterThanOrEqual(before - 10_000 - 5);
    expect(byName.skewed).toBeLessThanOrEqual(after - 10_000 + 5);
    expect(byName.offset).toBeGreaterThanOrEqual(before - 5000 - 5);
    expect(byName.offset).toBeLessThanOrEqual(after - 5000 + 5);
  });

  it('counts received, enqueued, dropped and persisted events in /metrics', async () => {
    const farFuture = new Date(Date.now() + 3 * 86_400_000).toISOString();
    await sendJson(t, '/batch/', { api_key: key, batch: [{ event: 'counted', distinct_id: 'm', timestamp: farFuture }, { distinct_id: 'nameless' }] });
    await waitForRows(t, `SELECT 1 FROM event WHERE event = 'counted'`, [], 1);
    const metrics = await t.http.get('/metrics', { key: TEST_METRICS_TOKEN });
    expect(metrics.status).toBe(200);
    expect(metrics.text).toMatch(/ingestion_events_received_total\{path="\/batch"\} \d+/);
    expect(metrics.text).toMatch(/ingestion_events_enqueued_total \d+/);
    expect(metrics.text).toMatch(/ingestion_events_dropped_total\{reason="missing_event_name"\} [1-9]/);
    // A corrected timestamp is a warning about a kept event, not a drop.
    expect(metrics.text).not.toContain('ingestion_events_dropped_total{reason="event_timestamp_in_future"}');
    expect(metrics.text).toMatch(/ingestion_events_persisted_total [1-9]/);
    expect(metrics.text).toMatch(/ingestion_lag_seconds_count [1-9]/);
  });
});

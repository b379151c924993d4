import { randomUUID } from 'node:crypto';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { storedEvents } from '../support/capture-client';
import { waitForQueuesIdle, waitForRows } from '../support/ingestion';
import { startTestApp, TestApp } from '../support/test-app';

const PATH = '/i/v1/analytics/events';

/** Exactly what posthog-python 7.42 sends in capture_mode="v1" for capture('my event', distinct_id='user1', properties={'a': 1}). */
function pythonRequest(token: string, overrides: Record<string, string> = {}) {
  const headers: Record<string, string> = {
    'User-Agent': 'posthog-python/7.42.0',
    'Accept-Encoding': 'gzip, deflate',
    Accept: '*/*',
    Connection: 'keep-alive',
    'Content-Type': 'application/json',
    Authorization: `Bearer ${token}`,
    'PostHog-Sdk-Info': 'posthog-python/7.42.0',
    'PostHog-Attempt': '1',
    'PostHog-Request-Id': '80129f10-ff29-4cd8-b557-666c9f87febc',
    'PostHog-Request-Timestamp': '2026-11-25T21:35:28.175802+00:00',
    ...overrides,
  };
  const body =
    '{"created_at": "2026-11-25T21:35:28.175523+00:00", "batch": [{"event": "my event", "uuid": "419a3629-9d9e-4f74-af44-c14595ae9447", ' +
    '"distinct_id": "user1", "timestamp": "2026-11-25T21:35:28.175218+00:00", "options": {}, "properties": {"a": 1, "$python_runtime": "CPython", ' +
    '"$python_version": "3.11.7", "$os": "Linux", "$os_version": "12", "$os_distro": "Debian GNU/Linux", "$geoip_disable": true, "$is_server": true}}]}';
  return { headers, body };
}

const v1Error = (error: string, description: string) => ({ error, error_description: description, error_uri: 'https://posthog.com/docs/api' });

describe('Capture v1 (/i/v1/analytics/events)', () => {
  let t: TestApp;
  const post = (headers: Record<string, string>, body: string | Uint8Array) => t.http.request('POST', PATH, { key: null, headers, raw: body });

  beforeAll(async () => {
    t = await startTestApp({ env: { ROLE: 'all' } });
  });
  afterAll(() => t.close());

  it("stores posthog-python's request as sent, with $lib from PostHog-Sdk-Info and the clock skew corrected", async () => {
    const { headers, body } = pythonRequest(t.keys.projectApiKey);
    const res = await post(headers, body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ results: { '419a3629-9d9e-4f74-af44-c14595ae9447': { result: 'ok' } } });
    expect(res.headers.get('posthog-request-id')).toBe('80129f10-ff29-4cd8-b557-666c9f87febc');
    await waitForRows(t, `SELECT 1 FROM event WHERE uuid = '419a3629-9d9e-4f74-af44-c14595ae9447'`, [], 1);
    const [event] = await storedEvents(t, `uuid = '419a3629-9d9e-4f74-af44-c14595ae9447'`);
    expect(event).toMatchObject({ event: 'my event', distinct_id: 'user1' });
    expect(event.properties).toMatchObject({ a: 1, $lib: 'posthog-python', $lib_version: '7.42.0', $python_runtime: 'CPython', $os: 'Linux', $is_server: true });
    // The event was made 0.6 ms before the request's timestamp; the server's clock is the reference.
    expect(Math.abs(Date.now() - event.timestamp.getTime())).toBeLessThan(60_000);
  });

  it('reads gzip, deflate and br bodies, and a session, window and options into their properties', async () => {
    const cases = [
      ['gzip', gzipSync],
      ['deflate', deflateSync],
      ['br', brotliCompressSync],
    ] as const;
    for (const [encoding, compress] of cases) {
      const uuid = randomUUID();
      const batch = [{ event: `v1_${encoding}`, uuid, distinct_id: 'u2', timestamp: new Date().toISOString(), session_id: 's1', window_id: 'w1', options: { process_person_profile: false, disable_skew_correction: true }, properties: { $set: { plan: 'pro' } } }];
      const { headers } = pythonRequest(t.keys.projectApiKey, { 'Content-Encoding': encoding, 'PostHog-Request-Id': randomUUID() });
      const res = await post(headers, compress(Buffer.from(JSON.stringify({ created_at: new Date().toISOString(), batch }))));
      expect([encoding, res.status, res.body]).toEqual([encoding, 200, { results: { [uuid]: { result: 'ok' } } }]);
      const [row] = await waitForRows<{ properties: Record<string, unknown> }>(t, 'SELECT properties FROM event WHERE uuid = $1', [uuid], 1);
      expect(row.properties).toMatchObject({ $session_id: 's1', $window_id: 'w1', $process_person_profile: false, $ignore_sent_at: true });
    }
  });

  it('drops single events in a 200 with their reason, and stores the rest', async () => {
    const ok = randomUUID();
    const ids = Array.from({ length: 6 }, () => randomUUID());
    const now = new Date().toISOString();
    const batch = [
      { event: 'fine', uuid: ok, distinct_id: 'u3', timestamp: now },
      { event: '', uuid: ids[0], distinct_id: 'u3', timestamp: now },
      { event: 'x'.repeat(201), uuid: ids[1], distinct_id: 'u3', timestamp: now },
      { event: 'no_id', uuid: ids[2], distinct_id: '  ', timestamp: now },
      { event: 'long_id', uuid: ids[3], distinct_id: 'd'.repeat(201), timestamp: now },
      { event: 'bad_time', uuid: ids[4], distinct_id: 'u3', timestamp: 'yesterday' },
      { event: 'bad_props', uuid: ids[5], distinct_id: 'u3', timestamp: now, properties: [1] },
    ];
    const { headers } = pythonRequest(t.keys.projectApiKey, { 'PostHog-Request-Id': randomUUID() });
    const res = await post(headers, JSON.stringify({ created_at: now, batch }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      results: {
        [ok]: { result: 'ok' },
        [ids[0]]: { result: 'drop', details: 'missing_event_name' },
        [ids[1]]: { result: 'drop', details: 'event_name_too_long' },
        [ids[2]]: { result: 'drop', details: 'missing_distinct_id' },
        [ids[3]]: { result: 'drop', details: 'distinct_id_too_large' },
        [ids[4]]: { result: 'drop', details: 'invalid_event_timestamp' },
        [ids[5]]: { result: 'drop', details: 'malformed_event_properties' },
      },
    });
    await waitForQueuesIdle(t);
    expect((await storedEvents(t, 'uuid = ANY($1::uuid[])', [[ok, ...ids]])).map((e) => e.event)).toEqual(['fine']);
  });

  const VALID = () => JSON.stringify({ created_at: new Date().toISOString(), batch: [{ event: 'e', uuid: randomUUID(), distinct_id: 'd', timestamp: new Date().toISOString() }] });

  it.each([
    ['no Authorization', { Authorization: '' }, 401, v1Error('missing_authorization', 'Send the project API key (phc_…) as "Authorization: Bearer phc_…".')],
    ['a personal key', { Authorization: 'Bearer phx_SomePersonalKey' }, 401, v1Error('invalid_api_token', 'This is a personal API key (phx_): capture takes the project API key (phc_), the one SDKs are given.')],
    ['a key of no project', { Authorization: 'Bearer phc_NoProjectHasThisKey000000000000000000' }, 401, v1Error('invalid_api_token', 'Project API key invalid: no project has this key. The project API key is printed on the first boot and is the "api_token" of GET /api/projects/@current/ (or `npm run cli -- projects list`).')],
    ['Basic auth', { Authorization: 'Basic abc' }, 400, v1Error('invalid_header_value', 'Authorization must be "Bearer <project API key>".')],
    ['missing PostHog headers', { 'PostHog-Attempt': '', 'PostHog-Sdk-Info': '' }, 400, v1Error('missing_required_headers', 'Missing required headers: posthog-sdk-info, posthog-attempt. PostHog SDKs in capture v1 mode send them all.')],
    ['a text body', { 'Content-Type': 'text/plain' }, 415, v1Error('unsupported_content_type', 'Content-Type must be application/json, got "text/plain".')],
    ['zstd', { 'Content-Encoding': 'zstd' }, 415, v1Error('unsupported_encoding', 'Content-Encoding "zstd" is not supported here: send gzip, deflate or br, or none.')],
    ['a request id that is no UUID', { 'PostHog-Request-Id': 'abc' }, 400, v1Error('invalid_header_value', 'PostHog-Request-Id must be a UUID.')],
    ['attempt 0', { 'PostHog-Attempt': '0' }, 400, v1Error('invalid_header_value', 'PostHog-Attempt must be a whole number from 1.')],
    ['a bad request timestamp', { 'PostHog-Request-Timestamp': 'now' }, 400, v1Error('invalid_header_value', 'PostHog-Request-Timestamp must be an RFC 3339 timestamp.')],
  ])('refuses %s', async (_label, overrides, status, body) => {
    const { headers } = pythonRequest(t.keys.projectApiKey, overrides);
    const res = await post(headers, VALID());
    expect([res.status, res.body]).toEqual([status, body]);
  });

  it.each([
    ['an empty body', '', 'empty_body', 'No data found: the request has no body and no ?data= parameter. Send the payload as the body of a POST (JSON, optionally gzip), or base64-encoded in ?data=.'],
    ['bad JSON', '{"batch": [', 'request_parsing_error', 'Malformed request data: Unexpected end of JSON input'],
    ['a list', '[]', 'request_parsing_error', 'The body must be a JSON object: {"created_at": …, "batch": [...]}.'],
    ['no created_at', '{"batch": []}', 'request_parsing_error', '"created_at" is required: the time the batch was made (RFC 3339).'],
    ['a bad created_at', '{"created_at": "today", "batch": []}', 'invalid_batch', '"created_at" must be an RFC 3339 timestamp.'],
    ['an empty batch', '{"created_at": "2026-11-25T00:00:00Z", "batch": []}', 'empty_batch', '"batch" is empty: send at least one event.'],
    ['an event without uuid', '{"created_at": "2026-11-25T00:00:00Z", "batch": [{"event": "e", "distinct_id": "d", "timestamp": "2026-11-25T00:00:00Z"}]}', 'request_parsing_error', 'batch[0].uuid is required and must be a string.'],
    ['a number distinct_id', '{"created_at": "2026-11-25T00:00:00Z", "batch": [{"event": "e", "uuid": "419a3629-9d9e-4f74-af44-c14595ae9447", "distinct_id": 7, "timestamp": "2026-11-25T00:00:00Z"}]}', 'request_parsing_error', 'batch[0].distinct_id is required and must be a string.'],
    ['a bad uuid', '{"created_at": "2026-11-25T00:00:00Z", "batch": [{"event": "e", "uuid": "nope", "distinct_id": "d", "timestamp": "2026-11-25T00:00:00Z"}]}', 'invalid_event_uuid', 'batch[0].uuid must be a UUID.'],
  ])('refuses %s with 400 and stores nothing', async (_label, raw, tag, description) => {
    const { headers } = pythonRequest(t.keys.projectApiKey, { 'PostHog-Request-Id': randomUUID() });
    const res = await post(headers, raw);
    expect([res.status, res.body]).toEqual([400, v1Error(tag, description)]);
    await waitForQueuesIdle(t);
    expect(await storedEvents(t, `event = 'e'`)).toEqual([]);
  });

  it('refuses a batch that names one uuid twice, storing neither', async () => {
    const uuid = randomUUID();
    const event = { event: 'twice', uuid, distinct_id: 'd', timestamp: new Date().toISOString() };
    const { headers } = pythonRequest(t.keys.projectApiKey, { 'PostHog-Request-Id': randomUUID() });
    const res = await post(headers, JSON.stringify({ created_at: new Date().toISOString(), batch: [event, event] }));
    expect([res.status, res.body]).toEqual([400, v1Error('duplicate_event_uuid', `batch[1].uuid ${uuid} appears twice in the batch.`)]);
    await waitForQueuesIdle(t);
    expect(await storedEvents(t, `event = 'twice'`)).toEqual([]);
  });

  it('answers a bad gzip body with request_decoding_error', async () => {
    const { headers } = pythonRequest(t.keys.projectApiKey, { 'Content-Encoding': 'gzip' });
    const res = await post(headers, Buffer.from([0x1f, 0x8b, 8, 0, 1, 2, 3]));
    expect([res.status, res.body]).toEqual([400, v1Error('request_decoding_error', 'Malformed request data: invalid GZIP data')]);
  });
});

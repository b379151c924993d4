import { gzipSync } from 'node:zlib';
import { ProvisioningService } from '../../src/modules/provisioning/provisioning.service';
import { sendJson, sendRaw } from '../support/capture-client';
import { startExtraApi, startTestApp, TestApp } from '../support/test-app';

const FLAGS_LIMIT = 64 * 1024;
const tooLarge = (limit: number) => ({ type: 'invalid_request', code: 'payload_too_large', detail: `Request body is larger than the limit of ${limit} bytes.`, attr: null });

/** What one public flag request may make the service do: its body is bounded, and so is the time it holds the event loop. */
describe('Flag evaluation limits', () => {
  let t: TestApp;
  let token: string;

  beforeAll(async () => {
    t = await startTestApp({ env: { ROLE: 'all' } });
    token = t.keys.projectApiKey;
    const flags = `/api/projects/${t.keys.projectId}/feature_flags/`;
    // The audit's pattern: linear in RE2, but slow per character on a JavaScript engine.
    const bio = { key: 'bio', value: '(.*a){20}$', operator: 'regex', type: 'person' };
    expect((await t.http.post(flags, { key: 'bio-rule', filters: { groups: [{ properties: [bio], rollout_percentage: 100 }] } })).status).toBe(201);
  });
  afterAll(() => t.close());

  const flagsOf = async (personProperties: Record<string, unknown>) => {
    const res = await sendJson(t, '/flags/?v=2', { token, distinct_id: 'reader', person_properties: personProperties });
    expect(res.status).toBe(200);
    return JSON.parse(res.text).flags;
  };

  it('answers PostHog-compatibly for everyday values', async () => {
    expect((await flagsOf({ bio: `${'b'.repeat(500)}${'a'.repeat(20)}` }))['bio-rule']).toMatchObject({ enabled: true, reason: { code: 'condition_match' } });
    expect((await flagsOf({ bio: 'bbb' }))['bio-rule']).toMatchObject({ enabled: false, reason: { code: 'no_condition_match' } });
  });

  it('refuses a flags body over its own limit, as received and once inflated, while capture keeps its own', async () => {
    const body = JSON.stringify({ token, distinct_id: 'x', person_properties: { bio: 'a'.repeat(FLAGS_LIMIT) } });
    const flags = await sendRaw(t, '/flags/?v=2', body, { 'content-type': 'application/json' });
    expect([flags.status, JSON.parse(flags.text)]).toEqual([413, tooLarge(FLAGS_LIMIT)]);
    const decide = await sendRaw(t, '/decide/?v=3', gzipSync(body), { 'content-type': 'text/plain' });
    expect([decide.status, JSON.parse(decide.text)]).toEqual([413, tooLarge(FLAGS_LIMIT)]);
    const capture = await sendJson(t, '/capture/', { api_key: token, event: 'long', distinct_id: 'x', properties: { bio: 'a'.repeat(FLAGS_LIMIT) } });
    expect(capture.status).toBe(200);
  });

  it('does not compare a value too long to compare, and serves other requests meanwhile (with the limit raised)', async () => {
    const raised = await startExtraApi(t, { FLAGS_MAX_BODY_BYTES: String(4 * 1024 * 1024) });
    try {
      const hostile = JSON.stringify({ token, distinct_id: 'x', person_properties: { bio: 'a'.repeat(1_000_000) } });
      const slowest = { ms: 0 };
      let done = false;
      const probe = (async () => {
        while (!done) {
          const started = performance.now();
          expect((await fetch(`${raised.baseUrl}/_health`)).status).toBe(200);
          slowest.ms = Math.max(slowest.ms, performance.now() - started);
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      })();
      const replies = await Promise.all([1, 2, 3].map(() => raised.http.request('POST', '/flags/?v=2', { key: null, raw: hostile, headers: { 'content-type': 'application/json' } })));
      done = true;
      await probe;
      expect(replies.map((res) => JSON.parse(res.text).flags['bio-rule'])).toEqual(
        replies.map(() => expect.objectContaining({ enabled: false, reason: expect.objectContaining({ code: 'no_condition_match' }) })),
      );
      // Matching the pattern over 1 MB took the event loop about 2 s per request before values were bounded.
      expect(slowest.ms).toBeLessThan(1000);
    } finally {
      await raised.close();
    }
  });

  it('asks a personal key sent in place of the project key for feature_flag:read', async () => {
    const provisioning = t.app.get(ProvisioningService);
    const reader = await provisioning.createPersonalKey({ email: 'admin@localhost', label: 'flags', scopes: ['feature_flag:read'], projectIds: null });
    const other = await provisioning.createPersonalKey({ email: 'admin@localhost', label: 'persons', scopes: ['person:read'], projectIds: null });
    const send = (key: string) => sendJson(t, '/flags/?v=2', { api_key: key, project_id: t.keys.projectId, distinct_id: 'reader' });
    expect((await send(reader)).status).toBe(200);
    const refused = await send(other);
    expect([refused.status, JSON.parse(refused.text)]).toEqual([
      403,
      { type: 'authentication_error', code: 'permission_denied', detail: "API key missing required scope 'feature_flag:read'", attr: null },
    ]);
  });
});

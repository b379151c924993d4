import { sendJson, sendRaw, storedEvents } from '../support/capture-client';
import { waitForQueuesIdle } from '../support/ingestion';
import { startTestApp, TestApp } from '../support/test-app';

const WHERE_PROJECT_KEY =
  'The project API key is printed on the first boot and is the "api_token" of GET /api/projects/@current/ (or `npm run cli -- projects list`).';
const invalidPayload = (detail: string) => ({ type: 'validation_error', code: 'invalid_payload', detail: `Malformed request data: ${detail}`, attr: null });

/** Mistakes a new user makes in the first hour: each answer names the mistake and the fix. */
describe('Error guidance', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ env: { ROLE: 'all' } });
  });
  afterAll(() => t.close());

  it('a project key (phc_) on /api/ says that /api/ takes a personal key and how to get one', async () => {
    const res = await t.http.get('/api/users/@me/', { key: t.keys.projectApiKey });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      type: 'authentication_error',
      code: 'authentication_failed',
      detail:
        'Personal API key found in request Authorization header is invalid. This is a project API key (phc_), which SDKs use; /api/ routes take a personal API key (phx_) as "Authorization: Bearer phx_…". Create one with `npm run cli -- keys create --email <you>` or POST /api/personal_api_keys/.',
      attr: null,
    });
  });

  it('a personal key (phx_) as api_key on /capture/ says that capture takes the project key', async () => {
    const res = await sendJson(t, '/capture/', { api_key: t.keys.personalApiKey, event: 'x', distinct_id: 'u' });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text)).toEqual({
      type: 'validation_error',
      code: 'invalid_project',
      detail: `Invalid Project ID. A personal API key (phx_) was sent as the project API key: SDKs and capture take the project API key (phc_). ${WHERE_PROJECT_KEY} To send with a personal key instead, add "project_id".`,
      attr: 'project_id',
    });
  });

  it('JSON sent with a form content type (curl -d) says which header to send', async () => {
    const raw = JSON.stringify({ api_key: t.keys.projectApiKey, distinct_id: 'u' });
    const res = await sendRaw(t, '/flags/?v=2', raw, { 'content-type': 'application/x-www-form-urlencoded' });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text)).toEqual({
      type: 'validation_error',
      code: 'no_data',
      detail:
        'No data found: the body was sent as a form (Content-Type: application/x-www-form-urlencoded, which is what `curl -d` sends) without a data= field. Send JSON with the header "Content-Type: application/json", or put the payload in a data= form field.',
      attr: null,
    });
    const fixed = await sendRaw(t, '/flags/?v=2', raw, { 'content-type': 'application/json' });
    expect(fixed.status).toBe(200);
  });

  it.each([
    ['a string', '"a string"', 'a string'],
    ['an object', '{"event": "x"}', 'an object'],
    ['a number', '3', 'a number'],
    ['null', 'null', 'null'],
  ])('a batch that is %s → 400 naming "batch", and nothing stored', async (_label, batch, kind) => {
    const res = await sendRaw(t, '/batch/', `{"api_key": "${t.keys.projectApiKey}", "batch": ${batch}}`, { 'content-type': 'application/json' });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text)).toEqual(invalidPayload(`"batch" must be a list of events, got ${kind}`));
    await waitForQueuesIdle(t);
    expect(await storedEvents(t)).toEqual([]); // nothing in this file is ever stored
  });
});

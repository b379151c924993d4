import { execFileSync } from 'node:child_process';
import { Agent, request as httpRequest } from 'node:http';
import { freePort, ServiceProcess } from '../support/service-process';
import { createEmptyDatabase, runId, TEST_METRICS_TOKEN, TEST_REDIS_URL } from '../support/test-env';

const PROJECT_KEY = 'phc_ClusterProjectKeyForTests0123456789abcdef';
const PERSONAL_KEY = 'phx_ClusterPersonalKeyForTests0123456789abcd';

interface Response {
  status: number;
  body: string;
}

/** One request, on a connection of its own unless an agent keeps connections. */
function send(port: number, method: string, path: string, body?: string, headers: Record<string, string> = {}, agent: Agent | false = false): Promise<Response> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, agent, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Children the primary logged as started: role → pids, oldest first. */
function children(service: ServiceProcess): Array<{ pid: number; role: string }> {
  return service.stdout
    .split('\n')
    .filter((line) => line.includes('"msg":"child process started"'))
    .map((line) => JSON.parse(line) as { child: number; role: string })
    .map(({ child, role }) => ({ pid: child, role }));
}

/** Which processes own the server side of the established connections on the port. */
function connectionOwners(port: number): Set<number> {
  const out = execFileSync('ss', ['-Htnp', 'state', 'established', `( sport = :${port} )`]).toString();
  return new Set([...out.matchAll(/pid=(\d+)/g)].map((match) => Number(match[1])));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until<T>(probe: () => T | Promise<T>, timeoutMs = 20_000): Promise<NonNullable<T>> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    if (performance.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const flagsRequest = (distinctId: string) => JSON.stringify({ token: PROJECT_KEY, distinct_id: distinctId });

/** API_PROCESSES=2 with ROLE=all: a primary, two HTTP children on one port and one worker child. */
describe('API cluster (API_PROCESSES)', () => {
  let service: ServiceProcess;
  let port: number;

  beforeAll(async () => {
    const url = await createEmptyDatabase('cluster');
    port = await freePort();
    service = new ServiceProcess({
      ROLE: 'all',
      API_PROCESSES: '2',
      PORT: String(port),
      DATABASE_URL: url,
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_PREFIX: `hbcluster${runId()}`,
      INIT_PROJECT_API_KEY: PROJECT_KEY,
      INIT_PERSONAL_API_KEY: PERSONAL_KEY,
      METRICS_TOKEN: TEST_METRICS_TOKEN,
      SHUTDOWN_GRACE_MS: '5000',
    });
    await service.waitFor(`http://127.0.0.1:${port}/_readyz`);
    await service.waitForOutput(/"processes":2,"workerProcess":true.*"msg":"started"/);
  }, 90_000);

  afterAll(() => {
    service.kill();
    for (const child of children(service)) if (alive(child.pid)) process.kill(child.pid, 'SIGKILL');
  });

  it('forks two HTTP children and one worker child, and announces the bootstrap once without printing the given keys', () => {
    expect(children(service).map((child) => child.role).sort()).toEqual(['api', 'api', 'worker']);
    expect(service.stdout.match(/hogbase is set up with the keys given in INIT_\*\./g)).toHaveLength(1);
    expect(service.stdout + service.stderr).not.toContain(PERSONAL_KEY);
    expect(service.stdout + service.stderr).not.toContain(PROJECT_KEY);
    expect(service.stdout.match(/"msg":"migrations applied"/g)).toHaveLength(1);
  });

  it('serves requests from both HTTP children on the one port', async () => {
    const agentPids = new Set(children(service).filter((child) => child.role === 'api').map((child) => child.pid));
    const agent = new Agent({ keepAlive: true, maxSockets: 4 });
    try {
      const replies = await Promise.all([1, 2, 3, 4].map(() => send(port, 'POST', '/flags/?v=2', flagsRequest('anyone'), {}, agent)));
      expect(replies.map((reply) => reply.status)).toEqual([200, 200, 200, 200]);
      // Four connections are open now; node:cluster handed them to the children in turn.
      expect(connectionOwners(port)).toEqual(agentPids);
    } finally {
      agent.destroy();
    }
  });

  it('sees a flag written through one child in every child within a second', async () => {
    const created = await send(port, 'POST', '/api/projects/@current/feature_flags/', JSON.stringify({ key: 'everywhere', filters: { groups: [{ rollout_percentage: 100 }] } }), {
      authorization: `Bearer ${PERSONAL_KEY}`,
    });
    expect(created.status).toBe(201);
    const started = performance.now();
    await until(async () => {
      const replies = await Promise.all([1, 2, 3, 4].map((n) => send(port, 'POST', '/flags/?v=2', flagsRequest(`someone-${n}`))));
      return replies.every((reply) => JSON.parse(reply.body).flags.everywhere?.enabled === true);
    });
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('answers /metrics with the sum over every process', async () => {
    const before = await metricCount(port);
    for (let n = 0; n < 10; n++) expect((await send(port, 'GET', '/_health')).status).toBe(200);
    // Whichever child takes the scrape, it counts the requests of both.
    for (let n = 0; n < 4; n++) expect(await metricCount(port)).toBe(before + 10);
  });

  it('refuses a scrape without METRICS_TOKEN in every child', async () => {
    const replies = await Promise.all([1, 2, 3, 4].map(() => send(port, 'GET', '/metrics')));
    expect(replies.map((reply) => [reply.status, JSON.parse(reply.body).code])).toEqual(Array(4).fill([401, 'not_authenticated']));
  });

  it('runs the ingestion processors in the worker child', async () => {
    const captured = await send(port, 'POST', '/capture/', JSON.stringify({ api_key: PROJECT_KEY, event: 'clustered', distinct_id: 'cluster-user' }));
    expect(captured.status).toBe(200);
    await until(async () => {
      const page = await send(port, 'GET', '/api/projects/@current/events/?event=clustered', undefined, { authorization: `Bearer ${PERSONAL_KEY}` });
      return page.status === 200 && JSON.parse(page.body).results.length === 1;
    });
  });

  it('answers insights in the HTTP children from the engine the primary owns', async () => {
    const events = encodeURIComponent(JSON.stringify([{ id: 'clustered' }]));
    // Every request lands on one child or the other (round robin): both must count the event stored above.
    for (let i = 0; i < 4; i++) {
      const trend = await send(port, 'GET', `/api/projects/@current/insights/trend/?events=${events}&display=BoldNumber&refresh=true`, undefined, { authorization: `Bearer ${PERSONAL_KEY}` });
      expect([trend.status, JSON.parse(trend.body).result[0].aggregated_value]).toEqual([200, 1]);
    }
  });

  it('replaces a child that is killed, and keeps serving', async () => {
    const victim = children(service).find((child) => child.role === 'api')!;
    process.kill(victim.pid, 'SIGKILL');
    await service.waitForOutput(new RegExp(`"child":${victim.pid},"role":"api","code":null,"signal":"SIGKILL","msg":"child process exited; starting another"`));
    const replacement = await until(() => children(service).slice(3).find((child) => child.role === 'api'));
    expect(alive(replacement.pid)).toBe(true);
    const replies = await Promise.all([1, 2, 3, 4].map((n) => send(port, 'POST', '/flags/?v=2', flagsRequest(`after-${n}`))));
    expect(replies.map((reply) => reply.status)).toEqual([200, 200, 200, 200]);
  });

  it('drains every child on SIGTERM and exits 0', async () => {
    const pids = children(service).map((child) => child.pid).filter(alive);
    expect(pids).toHaveLength(3);
    const stopped = await service.terminate();
    expect(stopped.code).toBe(0);
    expect(pids.filter(alive)).toEqual([]);
    expect(service.stdout).toMatch(/"exitCodes":\[0,0,0\],"msg":"stopped"/);
  });
});

async function metricCount(port: number): Promise<number> {
  const scrape = await send(port, 'GET', '/metrics', undefined, { authorization: `Bearer ${TEST_METRICS_TOKEN}` });
  expect(scrape.status).toBe(200);
  const line = scrape.body.split('\n').find((l) => l.startsWith('http_request_duration_seconds_count{method="GET",route="/_health",status="200"}'));
  return line ? Number(line.split(' ').pop()) : 0;
}

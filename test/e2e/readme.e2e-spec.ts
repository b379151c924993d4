import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePorts, ServiceProcess } from '../support/service-process';

const ROOT = join(__dirname, '..', '..');
const SKIP_MARK = '<!-- readme-test: skip';
const PERSONAL_KEY_LINE = /Personal API key \(phx_, for \/api\/\):\s+(phx_[A-Za-z0-9]+)/;
const PROJECT_KEY_LINE = /Project API key \(phc_, for SDKs\):\s+(phc_[A-Za-z0-9]+)/;

/** The README's `sh` blocks in order, except those marked as not runnable here (with the reason beside the mark). */
function readmeShellBlocks(markdown: string): string[] {
  const blocks: string[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() !== '```sh') continue;
    const end = lines.indexOf('```', i + 1);
    const skipped = lines[i - 1]?.startsWith(SKIP_MARK) ?? false;
    if (!skipped) blocks.push(lines.slice(i + 1, end).join('\n'));
    i = end;
  }
  return blocks;
}

/**
 * Every command of README.md, pasted in order into a shell against a freshly started service (as `npm run up` starts
 * it: embedded PostgreSQL in a new data directory, the keys printed once). The README's placeholders are the keys
 * printed on first boot (`phx_…`, `phc_…`) and the host; curl fails on any HTTP error, and the CLI runs without the
 * service's `EMBEDDED_PG_PORT`, as a user's second terminal would.
 */
describe('README commands', () => {
  let dataDir: string;
  let service: ServiceProcess;
  let base: string;
  let keys: { personal: string; project: string };

  beforeAll(async () => {
    // Made when the tests run, not when the file is read: a run that filters them out leaves nothing behind.
    dataDir = mkdtempSync(join(tmpdir(), 'hogbase-readme-'));
    const [port, pgPort] = await freePorts(2);
    base = `http://127.0.0.1:${port}`;
    service = new ServiceProcess({ DATA_DIR: dataDir, PORT: String(port), EMBEDDED_PG_PORT: String(pgPort) });
    await service.waitFor(`${base}/_readyz`, 90_000);
    keys = { personal: PERSONAL_KEY_LINE.exec(service.stdout)![1], project: PROJECT_KEY_LINE.exec(service.stdout)![1] };
  }, 120_000);

  afterAll(async () => {
    await service?.terminate();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('finds the runnable blocks, and placeholders only where the test fills them in', () => {
    const blocks = readmeShellBlocks(readFileSync(join(ROOT, 'README.md'), 'utf8'));
    expect(blocks.length).toBeGreaterThanOrEqual(8);
    for (const block of blocks) expect(block).not.toMatch(/<[a-z_ ]+>|…(?<!ph[xc]_…)/);
  });

  it('runs every command in order without an error', async () => {
    const blocks = readmeShellBlocks(readFileSync(join(ROOT, 'README.md'), 'utf8'));
    const fill = (block: string) =>
      block.replaceAll('phx_…', keys.personal).replaceAll('phc_…', keys.project).replaceAll('http://localhost:8000', base);
    const script = [
      'set -euo pipefail',
      // Any 4xx or 5xx fails the script, with the body printed.
      'curl() { command curl -sS --fail-with-body --max-time 60 "$@"; echo; }',
      // Ingestion is asynchronous: wait until the README's events are stored before the commands that read them.
      `stored() { command curl -s -H "Authorization: Bearer ${keys.personal}" "${base}/api/projects/@current/events/?event=signed_up" | grep -q user-1; }`,
      ...blocks.map((block, i) => {
        const wait = block.includes('/batch/') ? '\nfor _ in $(seq 1 100); do stored && break; sleep 0.1; done' : '';
        return `echo "--- README block ${i + 1}"\n${fill(block)}${wait}`;
      }),
    ].join('\n');
    // Asynchronously, so this process keeps reading the service's output pipes while the commands run.
    const run = await promisify(execFile)('bash', ['-c', script], {
      cwd: ROOT,
      timeout: 180_000,
      maxBuffer: 64 * 1024 * 1024,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    }).catch((error: { code?: number; stdout?: string; stderr?: string }) => {
      throw new Error(`README commands failed (exit ${error.code}):\n${`${error.stdout}\n${error.stderr}`.slice(-4000)}`);
    });
    const output = `${run.stdout}\n${run.stderr}`;
    expect(output).toContain('"key":"new-checkout"');
    // The persons behind today's DAU point, read from the output of the block that asks for them alone (the persons
    // list in other blocks names user-1 too).
    const persons = outputOfBlock(run.stdout, blocks.findIndex((block) => block.includes('persons_urls')));
    expect(persons).toMatch(/"people":\[\{[^\]]*"distinct_ids":\["user-1"\]/);
    expect(output).toMatch(/"properties":\{[^}]*"plan":"pro"/); // the person PATCH
    expect(output).toContain('Replayed 0 job(s).');
  }, 200_000);
});

/** What the script printed between the marker of block `index` (0-based) and the next. */
function outputOfBlock(stdout: string, index: number): string {
  expect(index).toBeGreaterThanOrEqual(0);
  const parts = stdout.split(/^--- README block (\d+)$/m);
  const at = parts.findIndex((part, i) => i % 2 === 1 && Number(part) === index + 1);
  return at === -1 ? '' : parts[at + 1];
}

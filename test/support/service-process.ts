import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { runId } from './test-env';

const MAIN = join(__dirname, '..', '..', 'dist', 'main.js');
/** The service's node flags, as `npm start` and the Dockerfile give them (package.json `config.node_flags`). */
export const SERVICE_NODE_FLAGS: string[] = (require('../../package.json') as { config: { node_flags: string } }).config.node_flags.split(' ').filter(Boolean);

/** A free TCP port on loopback, found by letting the kernel pick one. */
export async function freePort(): Promise<number> {
  return (await freePorts(1))[0];
}

/**
 * `count` different free TCP ports on loopback. Each is held open until all are picked: picked one after the other,
 * a port let go can come back at once, and two services given the same port fail to start.
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers = Array.from({ length: count }, () => createServer());
  const listening = await Promise.allSettled(
    servers.map((server) => new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
    })),
  );
  await Promise.all(servers.map((server) => new Promise((resolve) => (server.listening ? server.close(resolve) : resolve(undefined)))));
  const failed = listening.find((outcome) => outcome.status === 'rejected');
  if (failed) throw failed.reason;
  return listening.map((outcome) => (outcome as PromiseFulfilledResult<number>).value);
}

/** The built service (`node dist/main.js`) run as a real child process, as `npm run up` runs it. */
export class ServiceProcess {
  readonly child: ChildProcess;
  stdout = '';
  stderr = '';
  private readonly exited: Promise<number | null>;

  /**
   * Without a DATA_DIR of its own the service would use ./data, and the embedded ClickHouse there admits one
   * process: each service gets a directory of the run (the global teardown removes them).
   */
  constructor(env: Record<string, string>) {
    const dataDir = env.DATA_DIR ?? mkdtempSync(join(tmpdir(), `hogbase-t${runId()}-service-`));
    this.child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, MAIN], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'info', ...env, DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout!.on('data', (chunk) => (this.stdout += chunk));
    this.child.stderr!.on('data', (chunk) => (this.stderr += chunk));
    this.exited = new Promise((resolve) => this.child.on('exit', (code) => resolve(code)));
  }

  /** Polls a URL until it answers 200, or fails with what the process printed. */
  async waitFor(url: string, timeoutMs = 60_000): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (performance.now() < deadline) {
      if (this.child.exitCode !== null) throw new Error(`service exited (${this.child.exitCode}): ${this.stderr}${this.stdout}`);
      try {
        if ((await fetch(url)).status === 200) return;
      } catch {
        // Not listening yet.
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error(`service not ready at ${url}: ${this.stderr}${this.stdout}`);
  }

  /** Waits for a line of output matching the pattern. */
  async waitForOutput(pattern: RegExp, timeoutMs = 30_000): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (!pattern.test(this.stdout + this.stderr)) {
      if (this.child.exitCode !== null || performance.now() > deadline) throw new Error(`no ${pattern} in: ${this.stdout}${this.stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  exit(): Promise<number | null> {
    return this.exited;
  }

  /** SIGTERM, then the exit code and how long the drain took. */
  async terminate(): Promise<{ code: number | null; ms: number }> {
    const started = performance.now();
    if (this.child.exitCode === null) this.child.kill('SIGTERM');
    const code = await this.exited;
    return { code, ms: performance.now() - started };
  }

  kill(): void {
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
  }
}

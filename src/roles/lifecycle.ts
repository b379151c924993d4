import cluster from 'node:cluster';
import type { INestApplicationContext } from '@nestjs/common';
import type { Logger } from 'pino';
import type { AppConfig } from '../config/app-config';
import type { DatabaseHandle } from '../database/database-launcher';
import { HealthService } from '../modules/health/health.service';
import { BootstrapKeys, ProvisioningService } from '../modules/provisioning/provisioning.service';

/** Creates the first organization, project, user and keys on an empty database, before any role takes requests. */
export async function provision(app: INestApplicationContext, config: AppConfig): Promise<void> {
  if (cluster.isWorker) return; // the primary provisioned before forking
  const keys = await app.get(ProvisioningService).bootstrapIfEmpty();
  if (keys) printBootstrapKeys(keys, config);
}

/** Printed once, on the boot that created them, straight to stdout: the log stream never carries secrets. */
function printBootstrapKeys(keys: BootstrapKeys, config: AppConfig): void {
  const base = config.http.publicUrl ?? `http://localhost:${config.http.port}`;
  // Keys the operator gave (INIT_*) are theirs already: printing them would only copy a secret into a log.
  const given = { project: config.bootstrap.projectApiKey !== null, personal: config.bootstrap.personalApiKey !== null };
  const personal = given.personal ? '(the one in INIT_PERSONAL_API_KEY)' : keys.personalApiKey;
  const fresh = !given.project || !given.personal;
  process.stdout.write(
    [
      '',
      fresh ? '  hogbase is set up. Keep these keys: they are not shown again.' : '  hogbase is set up with the keys given in INIT_*.',
      `  Project API key (phc_, for SDKs):     ${given.project ? '(the one in INIT_PROJECT_API_KEY)' : keys.projectApiKey}`,
      `  Personal API key (phx_, for /api/):   ${personal}`,
      `  Admin user: ${keys.email}   Project id: ${keys.projectId}`,
      `  Admin password (sign in at ${base}/): ${config.bootstrap.adminPassword !== null ? '(the one in INIT_ADMIN_PASSWORD)' : keys.adminPassword}`,
      `  Try: curl -H "Authorization: Bearer ${given.personal ? '$INIT_PERSONAL_API_KEY' : keys.personalApiKey}" ${base}/api/users/@me/`,
      '',
    ].join('\n') + '\n',
  );
}

/** SIGTERM: stop taking work, finish in-flight requests and jobs, then exit 0 within the grace period. */
export function handleShutdown(app: INestApplicationContext, database: DatabaseHandle, config: AppConfig, logger: Logger): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'draining');
    const force = setTimeout(() => {
      logger.error('graceful shutdown took too long; exiting');
      process.exit(1);
    }, config.shutdownGraceMs + 4000);
    force.unref();
    try {
      app.get(HealthService, { strict: false })?.startDraining();
    } catch {
      // The worker role has no health endpoint to flip.
    }
    await app.close();
    await database.stop();
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  // A cluster child whose primary is gone drains like on SIGTERM instead of serving unsupervised.
  if (cluster.isWorker) process.on('disconnect', () => void stop('primary exited'));
}

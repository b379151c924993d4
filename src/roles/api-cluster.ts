import cluster, { Worker } from 'node:cluster';
import { NestFactory } from '@nestjs/core';
import type { Logger } from 'pino';
import { AppModule, RuntimeOptions } from '../app.module';
import { PinoNestLogger } from '../common/logging/logger';
import type { AppConfig, ProcessRole } from '../config/app-config';
import type { DatabaseHandle } from '../database/database-launcher';
import type { IpcEngineHost } from '../modules/analytics/engine/ipc-engine-host';
import { startEnginePrimary } from '../modules/analytics/engine/open-engine';
import { CHILD_READY, PrimaryMetrics } from '../modules/metrics/cluster-metrics';
import { provision } from './lifecycle';

/** API_PROCESSES > 1: provision once here, then let the children serve. */
export async function startApiCluster(runtime: RuntimeOptions, database: DatabaseHandle, logger: Logger): Promise<void> {
  const { config } = runtime;
  const context = await NestFactory.createApplicationContext(AppModule.forRoot(runtime, { api: false, workers: false }), { logger: new PinoNestLogger(logger) });
  await provision(context, config);
  await context.close();
  // Before forking: the children find the analytics schema migrated and, without CLICKHOUSE_URL, an engine here to forward to.
  const engineHost = await startEnginePrimary(config, (level, message) => logger[level](message));
  await new ApiCluster(config, database, logger, engineHost).start();
  const parts = { port: config.http.port, processes: config.http.processes, workerProcess: config.role === 'all' };
  logger.info({ role: config.role, ...parts, queue: runtime.queue.kind, version: config.version }, 'started');
}

/** A child that dies this soon after starting counts as failing to start. */
const QUICK_EXIT_MS = 10_000;
/** After this many quick exits in a row the cluster gives up rather than restarting forever. */
const MAX_QUICK_EXITS = 5;

interface Slot {
  role: Exclude<ProcessRole, 'all'>;
  worker: Worker | null;
  startedAt: number;
  ready: boolean;
}

/**
 * The primary of an API cluster (API_PROCESSES > 1, ROLE api or all): it has opened the database, run
 * the migrations and provisioned; it serves nothing itself. It forks API_PROCESSES HTTP children that
 * share the port (node:cluster hands connections round-robin), plus, for ROLE=all, one child running
 * the BullMQ processors, so they are not duplicated. A child that exits is logged and replaced; SIGTERM
 * drains every child, then stops the embedded PostgreSQL, and exits 0 when every child drained cleanly.
 * Without CLICKHOUSE_URL the primary also owns the embedded analytics engine (one process per data
 * directory) and answers the children's engine calls; it closes that engine once they have drained.
 */
export class ApiCluster {
  private readonly slots: Slot[];
  private stopping = false;
  private quickExits = 0;

  constructor(
    private readonly config: AppConfig,
    private readonly database: DatabaseHandle,
    private readonly logger: Logger,
    private readonly engineHost: IpcEngineHost | null = null,
  ) {
    const roles: Slot['role'][] = Array.from({ length: config.http.processes }, () => 'api');
    if (config.role === 'all') roles.push('worker');
    this.slots = roles.map((role) => ({ role, worker: null, startedAt: 0, ready: false }));
    new PrimaryMetrics(() => this.slots.filter((slot) => slot.ready && slot.worker).map((slot) => slot.worker!));
  }

  /** Forks every child and resolves once all of them have started. */
  async start(): Promise<void> {
    await Promise.all(this.slots.map((slot) => this.fork(slot)));
    process.on('SIGTERM', () => void this.stop('SIGTERM'));
    process.on('SIGINT', () => void this.stop('SIGINT'));
  }

  private fork(slot: Slot): Promise<void> {
    // Each child is a single process of its role; it finds the database open and migrated.
    const worker = cluster.fork({ ROLE: slot.role, API_PROCESSES: '1' });
    Object.assign(slot, { worker, startedAt: Date.now(), ready: false });
    worker.on('exit', (code, signal) => this.exited(slot, worker, code, signal));
    return new Promise((resolve) => {
      worker.on('message', (message: { type?: string }) => {
        if (message?.type !== CHILD_READY) return;
        slot.ready = true;
        this.quickExits = 0;
        this.logger.info({ child: worker.process.pid, role: slot.role }, 'child process started');
        resolve();
      });
      worker.once('exit', () => resolve());
    });
  }

  private exited(slot: Slot, worker: Worker, code: number | null, signal: string | null): void {
    if (slot.worker !== worker) return;
    slot.worker = null;
    slot.ready = false;
    if (this.stopping) return;
    const quick = Date.now() - slot.startedAt < QUICK_EXIT_MS;
    this.quickExits = quick ? this.quickExits + 1 : 0;
    this.logger.error({ child: worker.process.pid, role: slot.role, code, signal }, 'child process exited; starting another');
    if (this.quickExits >= MAX_QUICK_EXITS) {
      this.logger.fatal({ exits: this.quickExits }, 'child processes keep exiting at start; stopping');
      void this.stop('crash loop', 1);
      return;
    }
    // A child failing at start is retried after a pause, not in a tight loop.
    setTimeout(() => !this.stopping && void this.fork(slot), quick ? 1000 : 0);
  }

  private async stop(reason: string, failure = 0): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.logger.info({ signal: reason }, 'draining');
    const force = setTimeout(() => {
      this.logger.error('graceful shutdown took too long; exiting');
      for (const slot of this.slots) slot.worker?.process.kill('SIGKILL');
      process.exit(1);
    }, this.config.shutdownGraceMs + 6000);
    force.unref();
    const codes = await Promise.all(this.slots.map((slot) => drain(slot.worker)));
    await this.engineHost?.close();
    await this.database.stop();
    const clean = failure === 0 && codes.every((code) => code === 0);
    this.logger.info({ exitCodes: codes }, 'stopped');
    process.exit(clean ? 0 : 1);
  }
}

/** SIGTERM to one child (its own drain: readiness 503, in-flight requests and jobs finish), then its exit code. */
function drain(worker: Worker | null): Promise<number | null> {
  if (!worker || worker.process.exitCode !== null) return Promise.resolve(worker?.process.exitCode ?? 0);
  return new Promise((resolve) => {
    worker.once('exit', (code) => resolve(code));
    worker.process.kill('SIGTERM');
  });
}

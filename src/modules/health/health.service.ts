import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { QueueHealthService } from '../../queues/queue-health.service';

export interface ReadinessReport {
  status: 'ok' | 'unavailable';
  checks: { database: string; queue: string };
  queue_backend: string;
}

@Injectable()
export class HealthService {
  private draining = false;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly queue: QueueHealthService,
  ) {}

  /** Called on SIGTERM so that load balancers stop sending traffic before the server closes. */
  startDraining(): void {
    this.draining = true;
  }

  async readiness(): Promise<ReadinessReport> {
    const [database, queue] = await Promise.all([
      this.dataSource.query('SELECT 1').then(
        () => 'ok',
        () => 'unreachable',
      ),
      this.queue.ping().then(
        () => 'ok',
        () => 'unreachable',
      ),
    ]);
    const healthy = !this.draining && database === 'ok' && queue === 'ok';
    return {
      status: healthy ? 'ok' : 'unavailable',
      checks: { database: this.draining ? 'draining' : database, queue },
      queue_backend: this.queue.backend,
    };
  }
}

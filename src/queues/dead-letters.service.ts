import { Injectable } from '@nestjs/common';
import type { Job } from 'bullmq';
import { isPayloadReference } from './job-payloads';
import { PartitionQueues } from './partition-queues';

export interface DeadLetter {
  /** `<queue>:<job id>`, what `dlq replay` takes. */
  ref: string;
  failedAt: string | null;
  events: number;
  reason: string;
}

interface JobPayload {
  segments?: Array<{ events?: unknown[] }>;
}

/** Jobs that exhausted their attempts stay in each queue's failed set: that set is the dead-letter queue. */
@Injectable()
export class DeadLettersService {
  constructor(private readonly queues: PartitionQueues) {}

  async list(limit = 100): Promise<DeadLetter[]> {
    const letters: DeadLetter[] = [];
    for (const queue of this.queues.all) {
      for (const job of await queue.getFailed(0, limit - 1)) letters.push(describe(queue.name, job));
    }
    return letters.sort((a, b) => (a.failedAt ?? '').localeCompare(b.failedAt ?? '')).slice(0, limit);
  }

  /** Moves dead letters back to their queue; returns how many went. `refs` empty means all of them. */
  async replay(refs: string[]): Promise<number> {
    let replayed = 0;
    for (const queue of this.queues.all) {
      const name = queue.name;
      const wanted = refs.filter((ref) => ref.startsWith(`${name}:`)).map((ref) => ref.slice(name.length + 1));
      if (refs.length > 0 && wanted.length === 0) continue;
      const jobs = refs.length > 0 ? await Promise.all(wanted.map((id) => queue.getJob(id))) : await queue.getFailed();
      for (const job of jobs) {
        if (!job || !(await job.isFailed())) continue;
        await job.retry('failed');
        replayed += 1;
      }
    }
    return replayed;
  }

}

function describe(queueName: string, job: Job): DeadLetter {
  const data = job.data as JobPayload;
  return {
    ref: `${queueName}:${job.id}`,
    failedAt: job.finishedOn ? new Date(job.finishedOn).toISOString() : null,
    events: isPayloadReference(data) ? data.events : (data.segments ?? []).reduce((sum, segment) => sum + (segment.events?.length ?? 0), 0),
    reason: job.failedReason ?? '',
  };
}

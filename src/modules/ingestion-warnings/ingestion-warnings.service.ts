import { Injectable } from '@nestjs/common';
import { IngestionWarningQueriesRepository } from './ingestion-warning-queries.repository';
import { summarizeWarnings, WarningSummary } from './warning-summaries';

/** How far back the summary looks, as PostHog. */
export const WARNING_WINDOW_DAYS = 30;

@Injectable()
export class IngestionWarningsService {
  constructor(private readonly queries: IngestionWarningQueriesRepository) {}

  async summaries(projectId: number, search: string | null, now = new Date()): Promise<{ results: WarningSummary[] }> {
    const since = new Date(now.getTime() - WARNING_WINDOW_DAYS * 86_400_000);
    return { results: summarizeWarnings(await this.queries.summaryRows(projectId, since, search)) };
  }
}

import { Injectable } from '@nestjs/common';
import { BoundedReads } from '../../database/bounded-reads';
import { IngestionWarningQueriesRepository } from './ingestion-warning-queries.repository';
import { summarizeWarnings, WarningSummary } from './warning-summaries';

/** How far back the summary looks, as PostHog. */
export const WARNING_WINDOW_DAYS = 30;

/** The summary reads every warning of the window whatever `q` says: nothing to narrow. */
const SUMMARY_ADVICE = 'try again when the database is less busy, or raise MANAGEMENT_QUERY_TIMEOUT_MS';

@Injectable()
export class IngestionWarningsService {
  constructor(
    private readonly queries: IngestionWarningQueriesRepository,
    private readonly reads: BoundedReads,
  ) {}

  async summaries(projectId: number, search: string | null, now = new Date()): Promise<{ results: WarningSummary[] }> {
    const since = new Date(now.getTime() - WARNING_WINDOW_DAYS * 86_400_000);
    const rows = await this.reads.run(SUMMARY_ADVICE, (em) => this.queries.summaryRows(em, projectId, since, search));
    return { results: summarizeWarnings(rows) };
  }
}

import { Module } from '@nestjs/common';
import { BoundedReads } from '../../database/bounded-reads';
import { IngestionWarningQueriesRepository } from './ingestion-warning-queries.repository';
import { IngestionWarningsController } from './ingestion-warnings.controller';
import { IngestionWarningsService } from './ingestion-warnings.service';

/** The ingestion warnings API: what the workers dropped or corrected, summarised per warning type. */
@Module({
  controllers: [IngestionWarningsController],
  providers: [BoundedReads, IngestionWarningQueriesRepository, IngestionWarningsService],
  exports: [IngestionWarningsService],
})
export class IngestionWarningsModule {}

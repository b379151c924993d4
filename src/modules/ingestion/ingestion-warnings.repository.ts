import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { IngestionWarning } from '../ingestion-warnings/ingestion-warning';

@Injectable()
export class IngestionWarningsRepository {
  async insert(em: EntityManager, projectId: number, warnings: IngestionWarning[], at: string): Promise<void> {
    if (warnings.length === 0) return;
    await em.query(
      `INSERT INTO ingestion_warning (project_id, type, details, timestamp)
       SELECT $1, w.type, w.details, $3 FROM jsonb_to_recordset($2::jsonb) AS w(type text, details jsonb)`,
      [projectId, JSON.stringify(warnings), at],
    );
  }
}

import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { PersonalKeyAuth } from '../../common/auth/auth.decorator';
import { CurrentProject } from '../projects/current-project';
import { queryText } from '../../common/http/query-values';
import type { ProjectEntity } from '../projects/project.entity';
import { IngestionWarningsDto } from './dto/ingestion-warning.dto';
import { IngestionWarningsService } from './ingestion-warnings.service';

@ApiTags('ingestion warnings')
@ApiBearerAuth()
@Controller('api/projects/:project_id/ingestion_warnings')
export class IngestionWarningsController {
  constructor(private readonly warnings: IngestionWarningsService) {}

  /** What ingestion dropped or corrected in the last 30 days, per warning type. */
  @Get()
  @PersonalKeyAuth('query:read', { projectParam: 'project_id' })
  @ApiOperation({ summary: 'Ingestion warnings of the last 30 days: events dropped or corrected, and why' })
  @ApiQuery({ name: 'q', required: false, description: 'Keep warnings whose type or details contain this text.' })
  @ApiOkResponse({ type: IngestionWarningsDto })
  list(@CurrentProject() project: ProjectEntity, @Query() query: Record<string, unknown>) {
    return this.warnings.summaries(project.id, queryText(query.q) || null);
  }
}

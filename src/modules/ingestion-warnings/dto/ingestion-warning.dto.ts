import { ApiProperty } from '@nestjs/swagger';

export class IngestionWarningExampleDto {
  @ApiProperty({ example: 'missing_distinct_id' })
  type: string;

  @ApiProperty({ format: 'date-time' })
  timestamp: string;

  @ApiProperty({ type: 'object', additionalProperties: true, example: { event: 'signed_up' } })
  details: Record<string, unknown>;
}

export class IngestionWarningSummaryDto {
  @ApiProperty({ description: 'The warning type, e.g. missing_event_name, missing_distinct_id, event_too_big.' })
  type: string;

  @ApiProperty({ format: 'date-time', description: 'When this type was last recorded.' })
  lastSeen: string;

  @ApiProperty({ description: '[count, "YYYY-MM-DD"] per UTC day with warnings, oldest first.', type: 'array', items: { type: 'array', items: {} } })
  sparkline: Array<[number, string]>;

  @ApiProperty({ type: [IngestionWarningExampleDto], description: 'The 50 most recent, newest first.' })
  warnings: IngestionWarningExampleDto[];

  @ApiProperty({ description: 'Warnings of this type in the last 30 days.' })
  count: number;
}

export class IngestionWarningsDto {
  @ApiProperty({ type: [IngestionWarningSummaryDto], description: 'One summary per warning type, most recently seen first.' })
  results: IngestionWarningSummaryDto[];
}

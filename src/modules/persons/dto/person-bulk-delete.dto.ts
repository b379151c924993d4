import { ApiProperty } from '@nestjs/swagger';
import { IsArray, IsBoolean, IsOptional } from 'class-validator';

/**
 * `POST persons/bulk_delete/`: either `ids` or `distinct_ids`, at most 1000. Field types are checked
 * here; PostHog's rules between the fields and the check of every listed id are in person-bulk-delete.ts.
 * Null counts as absent, as PostHog reads the body with `.get()`.
 */
export class BulkDeletePersonsDto {
  /** Person uuids. Persons of other projects count as not found. */
  @IsOptional()
  @IsArray()
  @ApiProperty({ required: false, type: 'array', items: { type: 'string', format: 'uuid' }, maxItems: 1000 })
  ids?: unknown[];

  /** Distinct ids; each names the person that owns it now. */
  @IsOptional()
  @IsArray()
  @ApiProperty({ required: false, type: 'array', items: { type: 'string' }, maxItems: 1000 })
  distinct_ids?: unknown[];

  /** Also delete the events of every distinct id of the persons. */
  @IsOptional()
  @IsBoolean()
  delete_events?: boolean;

  /** Accepted for compatibility: no recordings are stored. */
  @IsOptional()
  @IsBoolean()
  delete_recordings?: boolean;

  /** Keep the persons (only their events go, with `delete_events`). */
  @IsOptional()
  @IsBoolean()
  keep_person?: boolean;
}

export class BulkDeleteErrorDto {
  person_uuid: string;
}

export class BulkDeletePersonsResultDto {
  persons_found: number;
  persons_deleted: number;
  /** `delete_events` was asked and persons were found: their events are already gone. */
  events_queued_for_deletion: boolean;
  recordings_queued_for_deletion: boolean;
  /** Always empty: the deletion is one transaction, so it succeeds or fails as a whole. */
  deletion_errors: BulkDeleteErrorDto[];
}

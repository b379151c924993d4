import { ApiProperty } from '@nestjs/swagger';
import { Allow, IsArray, IsBoolean, IsObject, IsString, MaxLength } from 'class-validator';
import { OptionalNonNull } from '../../../common/validation/validators';
import { UserBasicDto } from '../../users/dto/user-basic.dto';

/** Fields both create and update accept. */
class CohortWritableFields {
  @OptionalNonNull()
  @IsString()
  @MaxLength(400)
  name?: string;

  @OptionalNonNull()
  @IsString()
  @MaxLength(1000)
  description?: string;

  /** `{properties: {type: "AND"|"OR", values: [group | filter, …]}}`; leaves are person, cohort or behavioral filters. */
  @OptionalNonNull()
  @IsObject()
  filters?: Record<string, unknown>;

  /** Legacy definition: `[{properties: [filter, …]}, …]`, an OR of AND-ed groups. */
  @OptionalNonNull()
  @IsArray()
  groups?: unknown[];

  /** `true` soft-deletes the cohort. */
  @OptionalNonNull()
  @IsBoolean()
  deleted?: boolean;

  /** A static cohort is a stored list of persons instead of filters. */
  @OptionalNonNull()
  @IsBoolean()
  is_static?: boolean;

  /** Only `null`: query-based cohorts are not supported. */
  @Allow()
  @ApiProperty({ required: false, nullable: true, type: Object })
  query?: unknown;

  /** Write-only, static cohorts: person uuids to add; unknown ones are ignored. */
  @OptionalNonNull()
  @IsArray()
  @IsString({ each: true })
  person_ids?: string[];

  /** Write-only, static cohorts: distinct ids whose persons are added; unknown ones are ignored. */
  @OptionalNonNull()
  @IsArray()
  @IsString({ each: true })
  distinct_ids?: string[];
}

export class CreateCohortDto extends CohortWritableFields {}

export class UpdateCohortDto extends CohortWritableFields {}

/** PostHog checks these fields by hand, with its own messages (see static-members.ts). */
export class AddPersonsToStaticCohortDto {
  @Allow()
  @ApiProperty({ type: [String], description: 'Person uuids to add to the cohort' })
  person_ids: unknown;
}

export class RemovePersonFromStaticCohortDto {
  @Allow()
  @ApiProperty({ type: String, format: 'uuid', description: 'Person uuid to remove from the cohort' })
  person_id: unknown;
}

export class SuccessDto {
  success: boolean;
}

export class CohortDto {
  id: number;
  name: string;
  description: string;
  groups: unknown[];
  deleted: boolean;
  filters: Record<string, unknown>;
  /** Always null: query-based cohorts are not supported. */
  @ApiProperty({ type: Object, nullable: true })
  query: null;
  is_calculating: boolean;
  created_by: UserBasicDto | null;
  created_at: string;
  last_calculation: string;
  errors_calculating: number;
  /** Members of a static cohort; null for dynamic cohorts (evaluated on demand, never counted). */
  count: number | null;
  is_static: boolean;
  experiment_set: number[];
}

export class CohortPageDto {
  count: number;
  next: string | null;
  previous: string | null;
  results: CohortDto[];
}

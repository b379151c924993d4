import { ApiProperty } from '@nestjs/swagger';
import { Allow, ArrayMaxSize, IsArray, IsBoolean, IsInt, IsString, Max, MaxLength, Min, ValidateIf } from 'class-validator';
import { OptionalNonNull } from '../../../common/validation/validators';
import { UserBasicDto } from '../../users/dto/user-basic.dto';

const nullable = (_: unknown, value: unknown) => value !== null && value !== undefined;

/** Fields both create and update accept; `query` and `filters` are checked by parsing them as the insight they ask. */
class SavedInsightWritableFields {
  @ValidateIf(nullable)
  @IsString()
  @MaxLength(400)
  @ApiProperty({ required: false, nullable: true, type: String })
  name?: string | null;

  @ValidateIf(nullable)
  @IsString()
  @MaxLength(400)
  @ApiProperty({ required: false, nullable: true, type: String })
  derived_name?: string | null;

  @ValidateIf(nullable)
  @IsString()
  @MaxLength(400)
  @ApiProperty({ required: false, nullable: true, type: String })
  description?: string | null;

  /** `{"kind": "InsightVizNode", "source": {"kind": "TrendsQuery", …}}`: TrendsQuery, FunnelsQuery, RetentionQuery, PathsQuery, StickinessQuery or LifecycleQuery. */
  @Allow()
  @ApiProperty({ required: false, nullable: true, type: Object })
  query?: unknown;

  /** A legacy filter (`insight`, `events`, …), read as the query it stands for. */
  @Allow()
  @ApiProperty({ required: false, type: Object })
  filters?: unknown;

  @OptionalNonNull()
  @IsBoolean()
  favorited?: boolean;

  @OptionalNonNull()
  @IsBoolean()
  saved?: boolean;

  /** `true` soft-deletes the insight, `false` restores it. */
  @OptionalNonNull()
  @IsBoolean()
  deleted?: boolean;

  @ValidateIf(nullable)
  @IsInt()
  @Min(-2_147_483_648)
  @Max(2_147_483_647)
  @ApiProperty({ required: false, nullable: true, type: Number })
  order?: number | null;

  @OptionalNonNull()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @MaxLength(200, { each: true })
  tags?: string[];

  /** The dashboards the insight sits on: it is put on these and taken off every other. */
  @OptionalNonNull()
  @IsArray()
  @ArrayMaxSize(100)
  @IsInt({ each: true })
  @Min(1, { each: true })
  @Max(2_147_483_647, { each: true })
  dashboards?: number[];
}

export class CreateSavedInsightDto extends SavedInsightWritableFields {}

export class UpdateSavedInsightDto extends SavedInsightWritableFields {}

/** PostHog's basic insight serializer (`?basic=true`): no result. */
export class SavedInsightBasicDto {
  id: number;
  short_id: string;
  @ApiProperty({ nullable: true, type: String })
  name: string | null;
  @ApiProperty({ nullable: true, type: String })
  derived_name: string | null;
  @ApiProperty({ type: Object })
  filters: Record<string, unknown>;
  @ApiProperty({ nullable: true, type: Object })
  query: Record<string, unknown> | null;
  @ApiProperty({ type: [Number] })
  dashboards: number[];
  @ApiProperty({ type: [Object], description: '[{id, dashboard_id, deleted}]: every tile the insight has had.' })
  dashboard_tiles: Array<{ id: number; dashboard_id: number; deleted: boolean }>;
  @ApiProperty({ nullable: true, type: String })
  description: string | null;
  @ApiProperty({ nullable: true, type: String, format: 'date-time' })
  last_refresh: string | null;
  refreshing: boolean;
  saved: boolean;
  tags: string[];
  updated_at: string;
  @ApiProperty({ nullable: true, type: UserBasicDto })
  created_by: UserBasicDto | null;
  created_at: string;
  last_modified_at: string;
  favorited: boolean;
  user_access_level: string;
  @ApiProperty({ nullable: true, type: String, format: 'date-time' })
  last_viewed_at: string | null;
}

/** PostHog's insight serializer: the insight and its result, computed as `refresh` asks. */
export class SavedInsightDto extends SavedInsightBasicDto {
  @ApiProperty({ nullable: true, type: Number })
  order: number | null;
  deleted: boolean;
  @ApiProperty({ nullable: true, type: String, format: 'date-time' })
  cache_target_age: string | null;
  @ApiProperty({ nullable: true, type: String, format: 'date-time' })
  next_allowed_client_refresh: string | null;
  /** The query's `results` as `/query/` answers them; null when `refresh=force_cache` finds nothing computed. */
  @ApiProperty({ nullable: true })
  result: unknown;
  @ApiProperty({ nullable: true, type: Boolean })
  hasMore: boolean | null;
  @ApiProperty({ nullable: true, type: [String] })
  columns: string[] | null;
  @ApiProperty({ nullable: true, type: UserBasicDto })
  last_modified_by: UserBasicDto | null;
  is_sample: boolean;
  effective_restriction_level: number;
  effective_privilege_level: number;
  timezone: string;
  is_cached: boolean;
  @ApiProperty({ nullable: true, type: Object })
  query_status: unknown;
  @ApiProperty({ nullable: true, type: String })
  hogql: string | null;
  @ApiProperty({ nullable: true, type: [Object] })
  types: unknown[] | null;
  @ApiProperty({ type: [Object] })
  alerts: unknown[];
}

export class SavedInsightPageDto {
  count: number;
  @ApiProperty({ nullable: true, type: String })
  next: string | null;
  @ApiProperty({ nullable: true, type: String })
  previous: string | null;
  @ApiProperty({ type: [SavedInsightDto] })
  results: Array<SavedInsightDto | SavedInsightBasicDto>;
}

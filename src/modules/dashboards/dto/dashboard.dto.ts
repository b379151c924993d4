import { ApiProperty } from '@nestjs/swagger';
import { Allow, ArrayMaxSize, IsArray, IsBoolean, IsInt, IsString, Max, MaxLength, Min, ValidateIf } from 'class-validator';
import { OptionalNonNull } from '../../../common/validation/validators';
import { UserBasicDto } from '../../users/dto/user-basic.dto';
import { SavedInsightDto } from '../../saved-insights/dto/saved-insight.dto';

const nullable = (_: unknown, value: unknown) => value !== null && value !== undefined;

class DashboardWritableFields {
  @ValidateIf(nullable)
  @IsString()
  @MaxLength(400)
  @ApiProperty({ required: false, nullable: true, type: String })
  name?: string | null;

  @OptionalNonNull()
  @IsString()
  @MaxLength(10_000)
  description?: string;

  @OptionalNonNull()
  @IsBoolean()
  pinned?: boolean;

  /** `{date_from, date_to, properties, breakdown_filter}`: applied to every tile's query. */
  @Allow()
  @ApiProperty({ required: false, type: Object })
  filters?: unknown;

  @OptionalNonNull()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @MaxLength(200, { each: true })
  tags?: string[];
}

export class CreateDashboardDto extends DashboardWritableFields {
  /** A dashboard to copy the tiles of. */
  @OptionalNonNull()
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  use_dashboard?: number;

  /** With `use_dashboard`: copy its insights too, instead of showing the same ones. */
  @OptionalNonNull()
  @IsBoolean()
  duplicate_tiles?: boolean;
}

export class UpdateDashboardDto extends DashboardWritableFields {
  /** `true` soft-deletes the dashboard and its tiles, `false` restores them. */
  @OptionalNonNull()
  @IsBoolean()
  deleted?: boolean;

  /** With `deleted: true`: also delete the insights that are on no other dashboard. */
  @OptionalNonNull()
  @IsBoolean()
  delete_insights?: boolean;

  /** `[{id, layouts, color, filters_overrides, show_description, transparent_background, deleted}]` changes how tiles show; `[{text: {body}}]` adds a text tile. */
  @Allow()
  @ApiProperty({ required: false, type: [Object] })
  tiles?: unknown;
}

export class DashboardTextDto {
  id: number;
  body: string;
  @ApiProperty({ nullable: true, type: UserBasicDto })
  created_by: UserBasicDto | null;
  last_modified_at: string;
}

export class DashboardTileDto {
  id: number;
  @ApiProperty({ nullable: true, type: SavedInsightDto })
  insight: SavedInsightDto | null;
  @ApiProperty({ nullable: true, type: DashboardTextDto })
  text: DashboardTextDto | null;
  @ApiProperty({ type: Object })
  layouts: Record<string, unknown>;
  @ApiProperty({ nullable: true, type: String })
  color: string | null;
  @ApiProperty({ type: Object })
  filters_overrides: Record<string, unknown>;
  @ApiProperty({ nullable: true, type: Boolean })
  show_description: boolean | null;
  @ApiProperty({ nullable: true, type: Boolean })
  transparent_background: boolean | null;
  order: number;
  @ApiProperty({ nullable: true, type: String, format: 'date-time' })
  last_refresh: string | null;
  is_cached: boolean;
}

/** PostHog's basic dashboard serializer (the list): no tiles. */
export class DashboardBasicDto {
  id: number;
  @ApiProperty({ nullable: true, type: String })
  name: string | null;
  description: string;
  pinned: boolean;
  created_at: string;
  @ApiProperty({ nullable: true, type: UserBasicDto })
  created_by: UserBasicDto | null;
  @ApiProperty({ nullable: true, type: String, format: 'date-time' })
  last_accessed_at: string | null;
  is_shared: boolean;
  deleted: boolean;
  creation_mode: string;
  tags: string[];
  restriction_level: number;
  effective_restriction_level: number;
  effective_privilege_level: number;
  user_access_level: string;
  access_control_version: string;
}

/** PostHog's dashboard serializer: with its filters and tiles, each tile's insight with its result. */
export class DashboardDto extends DashboardBasicDto {
  @ApiProperty({ type: Object })
  filters: Record<string, unknown>;
  @ApiProperty({ type: Object })
  persisted_filters: Record<string, unknown>;
  @ApiProperty({ type: Object })
  variables: Record<string, unknown>;
  @ApiProperty({ type: Object })
  persisted_variables: Record<string, unknown>;
  @ApiProperty({ type: [Object] })
  breakdown_colors: unknown[];
  @ApiProperty({ nullable: true, type: Number })
  data_color_theme_id: number | null;
  @ApiProperty({ nullable: true, type: String, format: 'date-time' })
  last_refresh: string | null;
  team_id: number;
  @ApiProperty({ type: [DashboardTileDto] })
  tiles: DashboardTileDto[];
}

export class DashboardPageDto {
  count: number;
  @ApiProperty({ nullable: true, type: String })
  next: string | null;
  @ApiProperty({ nullable: true, type: String })
  previous: string | null;
  @ApiProperty({ type: [DashboardBasicDto] })
  results: DashboardBasicDto[];
}

import { Allow, IsArray, IsBoolean, IsDefined, IsInt, IsISO8601, IsNotEmpty, IsObject, IsOptional, IsString, MaxLength } from 'class-validator';
import { OptionalNonNull } from '../../../common/validation/validators';
import { UserBasicDto } from '../../users/dto/user-basic.dto';

/** Fields both create and update accept (PostHog's writable fields, plus `tags`). */
class FeatureFlagWritableFields {
  /** The flag's description; PostHog keeps the historical field name. */
  @OptionalNonNull()
  @IsString()
  name?: string;

  /** Condition sets, variants, payloads, group aggregation. */
  @OptionalNonNull()
  @IsObject()
  filters?: Record<string, unknown>;

  /** `true` soft-deletes the flag. */
  @OptionalNonNull()
  @IsBoolean()
  deleted?: boolean;

  @OptionalNonNull()
  @IsBoolean()
  active?: boolean;

  @OptionalNonNull()
  @IsISO8601({ strict: true })
  created_at?: string;

  @OptionalNonNull()
  @IsBoolean()
  ensure_experience_continuity?: boolean;

  /** Free-form JSON, stored as given. */
  @IsOptional()
  @Allow()
  rollback_conditions?: unknown;

  @IsOptional()
  @IsBoolean()
  performed_rollback?: boolean | null;

  @OptionalNonNull()
  @IsArray()
  @IsString({ each: true })
  tags?: string[];
}

export class CreateFeatureFlagDto extends FeatureFlagWritableFields {
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(400)
  key: string;
}

export class UpdateFeatureFlagDto extends FeatureFlagWritableFields {
  @OptionalNonNull()
  @IsString()
  @IsNotEmpty()
  @MaxLength(400)
  key?: string;

  /** When sent, the update applies only if the flag is still at this version (else 409). */
  @OptionalNonNull()
  @IsInt()
  version?: number;
}

export class FeatureFlagDto {
  id: number;
  name: string;
  key: string;
  filters: Record<string, unknown>;
  deleted: boolean;
  active: boolean;
  created_by: UserBasicDto | null;
  created_at: string;
  updated_at: string;
  version: number;
  last_modified_by: UserBasicDto | null;
  is_simple_flag: boolean;
  rollout_percentage: number | null;
  ensure_experience_continuity: boolean;
  experiment_set: number[];
  surveys: unknown[];
  features: unknown[];
  rollback_conditions: unknown;
  performed_rollback: boolean | null;
  can_edit: boolean;
  tags: string[];
  usage_dashboard: number | null;
  analytics_dashboards: number[];
  has_enriched_analytics: boolean;
  is_remote_configuration: boolean;
  has_encrypted_payloads: boolean;
}

export class FeatureFlagPageDto {
  count: number;
  next: string | null;
  previous: string | null;
  results: FeatureFlagDto[];
}

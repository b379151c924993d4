import { IsArray, IsNotEmpty, IsObject, IsOptional, IsString, MaxLength } from 'class-validator';
import { IsTimeZone, OptionalNonNull } from '../../../common/validation/validators';

export class CreateProjectDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name: string;

  @IsOptional()
  @IsTimeZone()
  timezone?: string;

  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  app_urls?: string[];
}

export class UpdateProjectDto {
  @OptionalNonNull()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name?: string;

  @OptionalNonNull()
  @IsTimeZone()
  timezone?: string;

  @OptionalNonNull()
  @IsArray()
  @IsString({ each: true })
  app_urls?: string[];

  /** Property filters (`[{key, value, operator, type}]`) that `filter_test_accounts=true` adds to every insight. */
  @OptionalNonNull()
  @IsArray()
  @IsObject({ each: true })
  test_account_filters?: Array<Record<string, unknown>>;

  /** Path cleaning rules (`[{regex, alias}]`) that paths with `path_replacements=true` apply, in order. */
  @OptionalNonNull()
  @IsArray()
  @IsObject({ each: true })
  path_cleaning_filters?: Array<Record<string, unknown>>;
}

/** PostHog's TeamBasic serializer: what `@me`, organizations and the project list embed. */
export class TeamBasicDto {
  id: number;
  uuid: string;
  /** The organization's id. */
  organization: string;
  project_id: number;
  api_token: string;
  name: string;
  completed_snippet_onboarding: boolean;
  has_completed_onboarding_for: Record<string, boolean> | null;
  ingested_event: boolean;
  is_demo: boolean;
  timezone: string;
  access_control: boolean;
}

export class ProjectDto extends TeamBasicDto {
  app_urls: string[];
  test_account_filters: Array<Record<string, unknown>>;
  path_cleaning_filters: Array<Record<string, unknown>>;
  created_at: string;
  updated_at: string;
  /** 1 member, 8 admin, 15 owner. */
  effective_membership_level: number | null;
}

export class ProjectPageDto {
  count: number;
  next: string | null;
  previous: string | null;
  results: ProjectDto[];
}

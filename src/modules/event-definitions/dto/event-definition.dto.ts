import { IsArray, IsBoolean, IsInt, IsOptional, IsString, MaxLength } from 'class-validator';
import { OptionalNonNull } from '../../../common/validation/validators';
import { UserBasicDto } from '../../users/dto/user-basic.dto';

export class EventDefinitionDto {
  id: string;
  name: string;
  /** The owner's user id (PostHog's API types it as an integer). */
  owner: number | null;
  description: string;
  tags: string[];
  volume_30_day: number;
  query_usage_30_day: number;
  created_at: string;
  updated_at: string | null;
  updated_by: UserBasicDto | null;
  last_seen_at: string | null;
  last_updated_at: string;
  verified: boolean;
  verified_at: string | null;
  verified_by: UserBasicDto | null;
  is_action: boolean;
  action_id: number | null;
  is_calculating: boolean;
  last_calculated_at: string | null;
  created_by: UserBasicDto | null;
  post_to_chat: boolean;
}

export class EventDefinitionPageDto {
  count: number;
  next: string | null;
  previous: string | null;
  results: EventDefinitionDto[];
}

export class UpdateEventDefinitionDto {
  /** A user id of the project's organization, or null to clear. */
  @IsOptional()
  @IsInt()
  owner?: number | null;

  @OptionalNonNull()
  @IsString()
  @MaxLength(4000)
  description?: string;

  /** Replaces the tag set; tags are trimmed, lower-cased and de-duplicated. */
  @OptionalNonNull()
  @IsArray()
  @IsString({ each: true })
  tags?: string[];

  @OptionalNonNull()
  @IsBoolean()
  verified?: boolean;

  @OptionalNonNull()
  @IsBoolean()
  post_to_chat?: boolean;
}

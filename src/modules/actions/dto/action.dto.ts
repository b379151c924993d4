import { ApiProperty } from '@nestjs/swagger';
import { Allow, IsArray, IsBoolean, IsDateString, IsString, MaxLength, ValidateIf } from 'class-validator';
import { OptionalNonNull } from '../../../common/validation/validators';
import { UserBasicDto } from '../../users/dto/user-basic.dto';

/** Fields both create and update accept; steps are checked by hand (action-steps.ts), with messages naming the step. */
class ActionWritableFields {
  @OptionalNonNull()
  @IsString()
  @MaxLength(400)
  name?: string;

  @OptionalNonNull()
  @IsString()
  @MaxLength(10_000)
  description?: string;

  @OptionalNonNull()
  @IsArray()
  @IsString({ each: true })
  @MaxLength(200, { each: true })
  tags?: string[];

  @OptionalNonNull()
  @IsBoolean()
  post_to_slack?: boolean;

  @OptionalNonNull()
  @IsString()
  @MaxLength(1200)
  slack_message_format?: string;

  /** `[{event, url, url_matching, text, text_matching, href, href_matching, tag_name, selector, properties}, …]`: any step matches. */
  @Allow()
  @ApiProperty({ required: false, type: [Object] })
  steps?: unknown;

  /** `true` soft-deletes the action. */
  @OptionalNonNull()
  @IsBoolean()
  deleted?: boolean;

  /** Any date pins the action (at the server's time), null unpins it. */
  @ValidateIf((_, value) => value !== null && value !== undefined)
  @IsDateString()
  @ApiProperty({ required: false, nullable: true, type: String, format: 'date-time' })
  pinned_at?: string | null;
}

export class CreateActionDto extends ActionWritableFields {}

export class UpdateActionDto extends ActionWritableFields {}

export class ActionStepDto {
  event: string | null;
  @ApiProperty({ type: [Object], nullable: true })
  properties: unknown[] | null;
  selector: string | null;
  tag_name: string | null;
  text: string | null;
  @ApiProperty({ enum: ['contains', 'regex', 'exact'], nullable: true })
  text_matching: string | null;
  href: string | null;
  @ApiProperty({ enum: ['contains', 'regex', 'exact'], nullable: true })
  href_matching: string | null;
  url: string | null;
  @ApiProperty({ enum: ['contains', 'regex', 'exact'], nullable: true })
  url_matching: string | null;
}

export class ActionDto {
  id: number;
  name: string;
  description: string;
  tags: string[];
  post_to_slack: boolean;
  slack_message_format: string;
  steps: ActionStepDto[];
  created_at: string;
  created_by: UserBasicDto | null;
  deleted: boolean;
  /** Always false: actions are matched when insights run, never precalculated. */
  is_calculating: boolean;
  last_calculated_at: string;
  team_id: number;
  /** Always true: tells an action from an event in lists that mix both. */
  is_action: boolean;
  bytecode_error: string | null;
  pinned_at: string | null;
}

export class ActionListDto {
  results: ActionDto[];
}

import { IsDefined, IsString } from 'class-validator';
import { FeatureFlagDto } from '../../feature-flags/dto/feature-flag.dto';
import { RoleDto } from '../../roles/dto/role.dto';

export class CreateRoleAccessDto {
  /** The role (uuid) to give edit access to the flag. */
  @IsDefined()
  @IsString()
  role_id: string;
}

export class RoleAccessDto {
  id: number;
  feature_flag: FeatureFlagDto;
  role: RoleDto;
  added_at: string;
  updated_at: string;
}

export class RoleAccessPageDto {
  count: number;
  next: string | null;
  previous: string | null;
  results: RoleAccessDto[];
}

import { IsIn, IsNotEmpty, IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';
import { UserBasicDto } from '../../users/dto/user-basic.dto';
import { ACCESS_RESOURCES, type AccessResource } from '../organization-resource-access.entity';

/** 21 = can only view, 37 = can always edit. */
export const ACCESS_LEVELS = [21, 37] as const;

export class CreateRoleDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name: string;
}

export class UpdateRoleDto {
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name?: string;

  @IsOptional()
  @IsIn(ACCESS_LEVELS)
  feature_flags_access_level?: number;
}

export class RoleMembershipDto {
  id: string;
  role_id: string;
  user: UserBasicDto;
  joined_at: string;
  updated_at: string;
}

export class AssociatedFlagDto {
  id: number;
  key: string;
}

export class RoleDto {
  id: string;
  name: string;
  feature_flags_access_level: number;
  created_at: string;
  created_by: UserBasicDto | null;
  members: RoleMembershipDto[];
  associated_flags: AssociatedFlagDto[];
}

export class RolePageDto {
  count: number;
  next: string | null;
  previous: string | null;
  results: RoleDto[];
}

export class CreateRoleMembershipDto {
  @IsUUID()
  user_uuid: string;
}

export class RoleMembershipPageDto {
  count: number;
  next: string | null;
  previous: string | null;
  results: RoleMembershipDto[];
}

export class CreateResourceAccessDto {
  @IsIn(ACCESS_RESOURCES)
  resource: AccessResource;

  @IsOptional()
  @IsIn(ACCESS_LEVELS)
  access_level?: number;
}

export class UpdateResourceAccessDto {
  @IsOptional()
  @IsIn(ACCESS_RESOURCES)
  resource?: AccessResource;

  @IsOptional()
  @IsIn(ACCESS_LEVELS)
  access_level?: number;
}

export class ResourceAccessDto {
  id: number;
  resource: string;
  access_level: number;
  organization: string;
  created_at: string;
  updated_at: string;
  created_by: UserBasicDto | null;
}

export class ResourceAccessPageDto {
  count: number;
  next: string | null;
  previous: string | null;
  results: ResourceAccessDto[];
}

import { Injectable } from '@nestjs/common';
import { ApiError } from '../../common/errors/api-error';
import { parseId } from '../../common/validation/patterns';
import { onUniqueViolation } from '../../database/query-errors';
import { FlagGrantsRepository } from './flag-grants.repository';
import type { FlagRoleGrantEntity } from './flag-role-grant.entity';
import { RolesService } from './roles.service';

/** Grants of roles to feature flags, the storage behind the role-access API. */
@Injectable()
export class FlagGrantsService {
  constructor(
    private readonly grants: FlagGrantsRepository,
    private readonly roles: RolesService,
  ) {}

  page(flagId: number, limit: number, offset: number): Promise<{ rows: FlagRoleGrantEntity[]; count: number }> {
    return this.grants.pageForFlag(flagId, limit, offset);
  }

  find(flagId: number, rawId: string): Promise<FlagRoleGrantEntity | null> {
    const id = parseId(rawId);
    return id === null ? Promise.resolve(null) : this.grants.find(flagId, id);
  }

  /** The role must belong to the flag's organization; a second grant of the same role is refused. */
  async grant(organizationId: string, flagId: number, roleId: string): Promise<FlagRoleGrantEntity> {
    const missing = () => ApiError.validation(`Invalid pk "${roleId}" - object does not exist.`, 'role_id', 'does_not_exist');
    const role = await this.roles.findRole(organizationId, roleId);
    if (!role) throw missing();
    const grant = await onUniqueViolation(() => this.grants.insert(flagId, role.id), 'feature_flag_role_access_role_flag_key', () =>
      ApiError.validation('The fields role, feature_flag must make a unique set.', null, 'unique'),
    );
    if (!grant) throw missing();
    return grant;
  }

  revoke(flagId: number, id: number): Promise<boolean> {
    return this.grants.delete(flagId, id);
  }
}

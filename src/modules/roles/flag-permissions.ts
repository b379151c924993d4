import { MembershipLevel } from '../organizations/organization-membership.entity';

/** Feature-flag access levels of roles and of the organization: view 21, edit 37, as PostHog's role-based access. */
export enum FlagAccessLevel {
  CanOnlyView = 21,
  CanAlwaysEdit = 37,
}

/** What decides whether one user may edit flags of one organization, loaded once per request. */
export interface FlagEditContext {
  userId: number;
  membershipLevel: MembershipLevel | null;
  /** The organization's default for "feature flags" (37 when never set). */
  organizationLevel: FlagAccessLevel;
  /** Highest level among the user's roles; 0 without roles. */
  roleLevel: number;
  /** Flags granted to one of the user's roles through role access. */
  grantedFlagIds: ReadonlySet<number>;
}

export interface FlagOwnership {
  id: number;
  createdById: number | null;
}

function isAdmin(context: FlagEditContext): boolean {
  return context.membershipLevel !== null && context.membershipLevel >= MembershipLevel.Admin;
}

/** PostHog's `can_user_edit_feature_flag`, with role-based access always available. */
export function canEditFlag(context: FlagEditContext, flag: FlagOwnership): boolean {
  if (flag.createdById !== null && flag.createdById === context.userId) return true;
  if (isAdmin(context)) return true;
  if (context.organizationLevel >= FlagAccessLevel.CanAlwaysEdit) return true;
  const level = context.roleLevel || context.organizationLevel;
  if (level === FlagAccessLevel.CanOnlyView) return context.grantedFlagIds.has(flag.id);
  return level === FlagAccessLevel.CanAlwaysEdit;
}

/** Who may grant or revoke role access to a flag (PostHog's `ee/api/feature_flag_role_access.py`). */
export function canManageFlagRoleAccess(context: FlagEditContext, flag: FlagOwnership): boolean {
  if (isAdmin(context)) return true;
  if (context.organizationLevel >= FlagAccessLevel.CanAlwaysEdit) return true;
  if (flag.createdById !== null && flag.createdById === context.userId) return true;
  return context.roleLevel >= FlagAccessLevel.CanAlwaysEdit;
}

import { ApiError } from '../../common/errors/api-error';
import type { CreateFeatureFlagDto, UpdateFeatureFlagDto } from './dto/feature-flag.dto';
import type { FeatureFlagEntity } from './feature-flag.entity';
import { renameEnrollmentKey } from '../../kernel/flag-filters';
import type { FlagColumns } from './feature-flags.repository';

/** Fields compared for the activity log, in PostHog's model field order. */
export const FLAG_ACTIVITY_FIELDS = [
  'key',
  'name',
  'filters',
  'deleted',
  'active',
  'rollback_conditions',
  'performed_rollback',
  'ensure_experience_continuity',
  'tags',
] as const;

const KEY_CHARSET = /^[a-zA-Z0-9_-]+$/;

export function checkKeyCharset(key: string): void {
  if (!KEY_CHARSET.test(key)) {
    throw ApiError.validation('Only letters, numbers, hyphens (-) & underscores (_) are allowed.', 'key', 'invalid_key');
  }
}

export function duplicateKeyError(): ApiError {
  return ApiError.validation('There is already a feature flag with this key.', 'key', 'unique');
}

/** A new flag's columns with PostHog's defaults for everything left out. */
export function columnsForCreate(dto: CreateFeatureFlagDto): FlagColumns {
  return {
    key: dto.key,
    name: dto.name ?? '',
    filters: dto.filters ?? {},
    deleted: dto.deleted ?? false,
    active: dto.active ?? true,
    ensureExperienceContinuity: dto.ensure_experience_continuity ?? false,
    rollbackConditions: dto.rollback_conditions ?? null,
    // Writing `active: true` resets a performed rollback, as PostHog's serializer does.
    performedRollback: dto.active === true ? false : (dto.performed_rollback ?? null),
    tags: dto.tags ?? [],
    createdAt: dto.created_at ? new Date(dto.created_at) : new Date(),
  };
}

export function columnsOf(flag: FeatureFlagEntity): FlagColumns {
  return {
    key: flag.key,
    name: flag.name,
    filters: flag.filters,
    deleted: flag.deleted,
    active: flag.active,
    ensureExperienceContinuity: flag.ensureExperienceContinuity,
    rollbackConditions: flag.rollbackConditions ?? null,
    performedRollback: flag.performedRollback,
    tags: flag.tags,
    createdAt: flag.createdAt,
  };
}

/**
 * The flag after a PATCH. `filters` without `groups` leaves the filters unchanged (PostHog's
 * partial-update rule); a key change carries over to early-access enrollment conditions.
 */
export function columnsForUpdate(current: FlagColumns, dto: UpdateFeatureFlagDto): FlagColumns {
  const next: FlagColumns = { ...current };
  if (dto.name !== undefined) next.name = dto.name;
  if (dto.filters !== undefined && 'groups' in dto.filters) next.filters = dto.filters;
  if (dto.deleted !== undefined) next.deleted = dto.deleted;
  if (dto.active !== undefined) next.active = dto.active;
  if (dto.ensure_experience_continuity !== undefined) next.ensureExperienceContinuity = dto.ensure_experience_continuity;
  if (dto.rollback_conditions !== undefined) next.rollbackConditions = dto.rollback_conditions;
  if (dto.performed_rollback !== undefined) next.performedRollback = dto.performed_rollback;
  if (dto.active === true) next.performedRollback = false;
  if (dto.tags !== undefined) next.tags = dto.tags;
  if (dto.created_at !== undefined) next.createdAt = new Date(dto.created_at);
  if (dto.key !== undefined && dto.key !== current.key) {
    next.key = dto.key;
    next.filters = renameEnrollmentKey(next.filters, current.key, dto.key);
  }
  return next;
}

/** The activity-log view of a flag's columns (PostHog's field names). */
export function activityView(columns: FlagColumns): Record<string, unknown> {
  return {
    key: columns.key,
    name: columns.name,
    filters: columns.filters,
    deleted: columns.deleted,
    active: columns.active,
    rollback_conditions: columns.rollbackConditions,
    performed_rollback: columns.performedRollback,
    ensure_experience_continuity: columns.ensureExperienceContinuity,
    tags: columns.tags,
  };
}

import { optionalUserBasicJson } from '../users/user-basic.presenter';
import type { FeatureFlagDto } from './dto/feature-flag.dto';
import type { FeatureFlagEntity } from './feature-flag.entity';
import { isSimpleFlag, servedFilters, simpleRolloutPercentage } from '../../kernel/flag-filters';

/** The full FeatureFlag serializer; `canEdit` is computed per caller. */
export function featureFlagJson(flag: FeatureFlagEntity, canEdit: boolean): FeatureFlagDto {
  const filters = servedFilters(flag.filters);
  return {
    id: flag.id,
    name: flag.name,
    key: flag.key,
    filters,
    deleted: flag.deleted,
    active: flag.active,
    created_by: optionalUserBasicJson(flag.createdBy),
    created_at: flag.createdAt.toISOString(),
    updated_at: flag.updatedAt.toISOString(),
    version: flag.version,
    last_modified_by: optionalUserBasicJson(flag.lastModifiedBy),
    is_simple_flag: isSimpleFlag(filters),
    rollout_percentage: simpleRolloutPercentage(filters),
    ensure_experience_continuity: flag.ensureExperienceContinuity,
    experiment_set: [],
    surveys: [],
    features: [],
    rollback_conditions: flag.rollbackConditions ?? null,
    performed_rollback: flag.performedRollback,
    can_edit: canEdit,
    tags: flag.tags,
    usage_dashboard: null,
    analytics_dashboards: [],
    has_enriched_analytics: false,
    is_remote_configuration: false,
    has_encrypted_payloads: false,
  };
}

import type { PersonalApiKeyDto } from './dto/personal-api-key.dto';
import type { PersonalApiKeyEntity } from './personal-api-key.entity';

export function personalApiKeyJson(key: PersonalApiKeyEntity, value: string | null = null): PersonalApiKeyDto {
  return {
    id: key.id,
    label: key.label,
    value,
    mask_value: key.maskValue,
    created_at: key.createdAt.toISOString(),
    last_used_at: key.lastUsedAt?.toISOString() ?? null,
    user_id: key.userId,
    scopes: key.scopes && key.scopes.length > 0 ? key.scopes : ['*'],
    scoped_teams: key.scopedProjects ?? [],
    scoped_organizations: [],
    last_rolled_at: key.lastRolledAt?.toISOString() ?? null,
  };
}

import { TeamBasicDto } from '../../projects/dto/project.dto';

export class CurrentTeamDto extends TeamBasicDto {
  app_urls: string[];
  event_names: string[];
  event_properties: string[];
}

export class OrganizationBasicDto {
  id: string;
  name: string;
  slug: string;
  logo_media_id: string | null;
  membership_level: number;
  members_can_use_personal_api_keys: boolean;
}

export class ProjectBasicDto {
  id: number;
  organization_id: string;
  name: string;
}

export class OrganizationDto {
  id: string;
  name: string;
  slug: string;
  logo_media_id: string | null;
  created_at: string;
  updated_at: string;
  membership_level: number | null;
  plugins_access_level: number;
  teams: TeamBasicDto[];
  projects: ProjectBasicDto[];
  available_product_features: unknown[];
  is_member_join_email_enabled: boolean;
  metadata: Record<string, unknown>;
  customer_id: string | null;
  enforce_2fa: boolean | null;
  members_can_invite: boolean;
  members_can_use_personal_api_keys: boolean;
  allow_publicly_shared_resources: boolean;
  member_count: number;
  is_ai_data_processing_approved: boolean | null;
  default_experiment_stats_method: string;
  default_role_id: string | null;
}

/** PostHog's UserSerializer (2025) plus the service version. */
export class CurrentUserDto {
  date_joined: string;
  uuid: string;
  distinct_id: string;
  first_name: string;
  last_name: string;
  email: string;
  pending_email: string | null;
  is_email_verified: boolean | null;
  notification_settings: Record<string, unknown>;
  anonymize_data: boolean;
  toolbar_mode: string;
  has_password: boolean;
  id: number;
  is_staff: boolean;
  is_impersonated: boolean;
  is_impersonated_until: string | null;
  sensitive_session_expires_at: string | null;
  team: CurrentTeamDto | null;
  organization: OrganizationDto | null;
  organizations: OrganizationBasicDto[];
  events_column_config: Record<string, unknown>;
  is_2fa_enabled: boolean;
  has_social_auth: boolean;
  has_sso_enforcement: boolean;
  has_seen_product_intro_for: Record<string, boolean> | null;
  scene_personalisation: unknown[];
  theme_mode: string | null;
  hedgehog_config: Record<string, unknown> | null;
  role_at_organization: string | null;
  version: string;
}

import { Inject, Injectable } from '@nestjs/common';
import type { CallerUser, UserPrincipal } from '../../common/auth/principal';
import { projectRestriction } from '../../common/auth/scopes';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { EventDefinitionsService } from '../event-definitions/event-definitions.service';
import type { MembershipWithOrganization } from '../organizations/organizations.repository';
import { OrganizationsService } from '../organizations/organizations.service';
import { teamBasicJson } from '../projects/project.presenter';
import { ProjectEntity } from '../projects/project.entity';
import { ProjectsService } from '../projects/projects.service';
import type { CurrentTeamDto, CurrentUserDto, OrganizationDto } from './dto/current-user.dto';
import { UsersService } from './users.service';


/** Builds `GET /api/users/@me/` in the shape of PostHog's UserSerializer. */
@Injectable()
export class CurrentUserService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly organizations: OrganizationsService,
    private readonly projects: ProjectsService,
    private readonly definitions: EventDefinitionsService,
    private readonly users: UsersService,
  ) {}

  /** A key limited to some projects sees those projects, their organizations and nothing else. */
  async describe(principal: UserPrincipal): Promise<CurrentUserDto> {
    const { user } = principal;
    const restriction = projectRestriction(principal.key);
    const all = await this.organizations.membershipsOf(user.id);
    const projectsOf = await this.visibleProjects(all, restriction);
    const memberships = restriction === null ? all : all.filter((m) => projectsOf.get(m.organization.id)!.length > 0);
    const project = await this.currentProject(user, restriction, [...projectsOf.values()].flat());
    const currentOrganizationId = project?.organizationId ?? user.currentOrganizationId;
    const current = memberships.find((m) => m.organization.id === currentOrganizationId) ?? memberships[0] ?? null;
    return {
      ...userFields(user, await this.users.hasPassword(user.id)),
      team: project ? await this.team(project) : null,
      organization: current ? await this.organization(current, projectsOf.get(current.organization.id)!) : null,
      organizations: memberships.map(({ organization, level }) => ({
        id: organization.id,
        name: organization.name,
        slug: organization.slug,
        logo_media_id: null,
        membership_level: level,
        members_can_use_personal_api_keys: true,
      })),
      version: this.config.version,
    };
  }

  /** Each organization's projects that the key may see. */
  private async visibleProjects(memberships: MembershipWithOrganization[], restriction: ReadonlySet<number> | null): Promise<Map<string, ProjectEntity[]>> {
    const lists = await Promise.all(memberships.map((m) => this.projects.listForOrganization(m.organization.id)));
    return new Map(memberships.map((m, i) => [m.organization.id, lists[i].filter((p) => restriction === null || restriction.has(p.id))]));
  }

  /** The user's current project, or for a key limited elsewhere the first project it may see. */
  private async currentProject(user: CallerUser, restriction: ReadonlySet<number> | null, visible: ProjectEntity[]): Promise<ProjectEntity | null> {
    if (restriction === null) return user.currentProjectId ? this.projects.findById(user.currentProjectId) : null;
    return visible.find((p) => p.id === user.currentProjectId) ?? visible[0] ?? null;
  }

  private async team(project: ProjectEntity): Promise<CurrentTeamDto> {
    const taxonomy = await this.definitions.taxonomy(project.id);
    return {
      ...teamBasicJson(project),
      app_urls: project.appUrls,
      event_names: taxonomy.eventNames,
      event_properties: taxonomy.eventProperties,
    };
  }

  private async organization({ organization, level }: MembershipWithOrganization, projects: ProjectEntity[]): Promise<OrganizationDto> {
    const memberCount = await this.organizations.memberCount(organization.id);
    return {
      id: organization.id,
      name: organization.name,
      slug: organization.slug,
      logo_media_id: null,
      created_at: organization.createdAt.toISOString(),
      updated_at: organization.updatedAt.toISOString(),
      membership_level: level,
      plugins_access_level: 0,
      teams: projects.map(teamBasicJson),
      projects: projects.map((p) => ({ id: p.id, organization_id: p.organizationId, name: p.name })),
      // Self-hosted: every feature is available, nothing is paywalled.
      available_product_features: [],
      is_member_join_email_enabled: false,
      metadata: { instance_tag: 'none' },
      customer_id: null,
      enforce_2fa: null,
      members_can_invite: true,
      members_can_use_personal_api_keys: true,
      allow_publicly_shared_resources: true,
      member_count: memberCount,
      is_ai_data_processing_approved: null,
      default_experiment_stats_method: 'bayesian',
      default_role_id: null,
    };
  }
}

function userFields(user: CallerUser, hasPassword: boolean) {
  return {
    date_joined: user.dateJoined.toISOString(),
    uuid: user.uuid,
    distinct_id: user.distinctId,
    first_name: user.firstName,
    last_name: user.lastName,
    email: user.email,
    pending_email: null,
    is_email_verified: null,
    notification_settings: {},
    anonymize_data: false,
    toolbar_mode: 'toolbar',
    has_password: hasPassword,
    id: user.id,
    is_staff: user.isStaff,
    is_impersonated: false,
    is_impersonated_until: null,
    sensitive_session_expires_at: null,
    events_column_config: { active: 'DEFAULT' },
    is_2fa_enabled: false,
    has_social_auth: false,
    has_sso_enforcement: false,
    has_seen_product_intro_for: null,
    scene_personalisation: [],
    theme_mode: null,
    hedgehog_config: null,
    role_at_organization: null,
  };
}

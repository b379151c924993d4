import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ApiError } from '../../common/errors/api-error';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { MembershipLevel } from '../organizations/organization-membership.entity';
import { OrganizationsService } from '../organizations/organizations.service';
import { generatedPassword } from '../sessions/passwords';
import { SessionsService } from '../sessions/sessions.service';
import { PersonalApiKeysService } from '../personal-api-keys/personal-api-keys.service';
import { ProjectEntity } from '../projects/project.entity';
import { ProjectsService } from '../projects/projects.service';
import { UserEntity } from '../users/user.entity';
import { UsersService } from '../users/users.service';

export interface BootstrapKeys {
  email: string;
  projectId: number;
  projectApiKey: string;
  personalApiKey: string;
  /** The admin's console password, made on first boot (INIT_ADMIN_PASSWORD when given). */
  adminPassword: string;
}

export interface NewUserRequest {
  email: string;
  firstName?: string;
  /** Defaults to the first organization. */
  organizationId?: string;
  level: MembershipLevel;
}

export interface NewKeyRequest {
  email: string;
  label: string;
  scopes: string[];
  projectIds: number[] | null;
}

/** Serialises first-boot provisioning across processes that start together. */
const BOOTSTRAP_LOCK_KEY = 7_263_002;

/** Creates organizations, projects, users and keys: first boot and the CLI share these use cases. */
@Injectable()
export class ProvisioningService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly organizations: OrganizationsService,
    private readonly projects: ProjectsService,
    private readonly users: UsersService,
    private readonly keys: PersonalApiKeysService,
    private readonly sessions: SessionsService,
  ) {}

  /** On an empty database: one organization, project, admin user and personal key. Null if already set up. */
  async bootstrapIfEmpty(): Promise<BootstrapKeys | null> {
    return this.dataSource.transaction(async (em) => {
      await em.query('SELECT pg_advisory_xact_lock($1)', [BOOTSTRAP_LOCK_KEY]);
      if (!(await this.organizations.isEmptyInstallation())) return null;
      const organization = await this.organizations.create(em, 'Default Organization');
      const project = await this.projects.create(em, organization.id, 'Default Project', {
        apiToken: this.config.bootstrap.projectApiKey ?? undefined,
      });
      const user = await this.users.create(em, {
        email: this.config.bootstrap.adminEmail,
        firstName: 'Admin',
        currentOrganizationId: organization.id,
        currentProjectId: project.id,
      });
      await this.organizations.addMember(em, organization.id, user.id, MembershipLevel.Owner);
      const { value } = await this.keys.create(em, {
        userId: user.id,
        label: 'Bootstrap key',
        scopes: ['*'],
        scopedProjects: null,
        value: this.config.bootstrap.personalApiKey ?? undefined,
      });
      const adminPassword = this.config.bootstrap.adminPassword ?? generatedPassword();
      await this.sessions.setPassword(user.id, adminPassword, em);
      return { email: user.email, projectId: project.id, projectApiKey: project.apiToken, personalApiKey: value, adminPassword };
    });
  }

  /** Sets a user's console password (ending their sessions); a generated one when none is given, returned to print. */
  async setPassword(email: string, password: string | undefined): Promise<string> {
    const user = await this.users.findByEmail(email);
    if (!user) throw ApiError.validation(`No user with email ${email}.`, 'email');
    const chosen = password ?? generatedPassword();
    await this.sessions.setPassword(user.id, chosen);
    return chosen;
  }

  /** A new organization with one project; the owner must already exist. */
  async createOrganization(name: string, ownerEmail: string): Promise<{ organizationId: string; project: ProjectEntity }> {
    const owner = await this.users.findByEmail(ownerEmail);
    if (!owner) throw ApiError.validation(`No user with email ${ownerEmail}.`, 'email');
    return this.dataSource.transaction(async (em) => {
      const organization = await this.organizations.create(em, name);
      await this.organizations.addMember(em, organization.id, owner.id, MembershipLevel.Owner);
      const project = await this.projects.create(em, organization.id, 'Default Project');
      return { organizationId: organization.id, project };
    });
  }

  async createUser(request: NewUserRequest): Promise<UserEntity> {
    const organizationId = request.organizationId ?? (await this.firstOrganizationId());
    const projects = await this.projects.listForOrganization(organizationId);
    return this.dataSource.transaction(async (em) => {
      const user = await this.users.create(em, {
        email: request.email,
        firstName: request.email.split('@')[0],
        currentOrganizationId: organizationId,
        currentProjectId: projects[0]?.id ?? null,
      });
      await this.organizations.addMember(em, organizationId, user.id, request.level);
      return user;
    });
  }

  async createProject(name: string, organizationId?: string): Promise<ProjectEntity> {
    const target = organizationId ?? (await this.firstOrganizationId());
    if (!(await this.organizations.findById(target))) throw ApiError.validation(`No organization ${target}.`);
    return this.dataSource.transaction((em) => this.projects.create(em, target, name));
  }

  async createPersonalKey(request: NewKeyRequest): Promise<string> {
    const user = await this.users.findByEmail(request.email);
    if (!user) throw ApiError.validation(`No user with email ${request.email}.`, 'email');
    const { value } = await this.dataSource.transaction((em) =>
      this.keys.create(em, { userId: user.id, label: request.label, scopes: request.scopes, scopedProjects: request.projectIds }),
    );
    return value;
  }

  async rotateProjectKey(projectId: number): Promise<string> {
    if (!(await this.projects.findById(projectId))) throw ApiError.validation(`No project ${projectId}.`);
    return this.projects.rotateApiToken(projectId);
  }

  private async firstOrganizationId(): Promise<string> {
    const [first] = await this.dataSource.query('SELECT id FROM organization ORDER BY created_at, id LIMIT 1');
    if (!first) throw ApiError.validation('No organization exists yet: start the service once to create one.');
    return first.id;
  }
}

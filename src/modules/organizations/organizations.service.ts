import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { MembershipLevel } from './organization-membership.entity';
import { OrganizationEntity } from './organization.entity';
import { MembershipWithOrganization, OrganizationsRepository } from './organizations.repository';

@Injectable()
export class OrganizationsService {
  constructor(private readonly organizations: OrganizationsRepository) {}

  isEmptyInstallation(): Promise<boolean> {
    return this.organizations.count().then((count) => count === 0);
  }

  findById(id: string): Promise<OrganizationEntity | null> {
    return this.organizations.findById(id);
  }

  membershipLevel(userId: number, organizationId: string): Promise<MembershipLevel | null> {
    return this.organizations.membershipLevel(userId, organizationId);
  }

  membershipsOf(userId: number): Promise<MembershipWithOrganization[]> {
    return this.organizations.membershipsOf(userId);
  }

  memberCount(organizationId: string): Promise<number> {
    return this.organizations.memberCount(organizationId);
  }

  /** Slugs are unique: a taken one gets a numeric suffix. */
  async create(em: EntityManager, name: string): Promise<OrganizationEntity> {
    const base = slugify(name) || 'organization';
    let slug = base;
    for (let attempt = 2; await this.organizations.findBySlug(slug); attempt++) slug = `${base}-${attempt}`;
    return this.organizations.create(em, name, slug);
  }

  addMember(em: EntityManager, organizationId: string, userId: number, level: MembershipLevel): Promise<void> {
    return this.organizations.addMember(em, organizationId, userId, level);
  }
}

export function slugify(name: string): string {
  return name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48);
}

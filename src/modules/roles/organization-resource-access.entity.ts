import { Column, Entity, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { UserEntity } from '../users/user.entity';

/** Resources an organization can set a default access level for (PostHog `OrganizationResourceAccess`). */
export const ACCESS_RESOURCES = [
  'feature flags',
  'experiments',
  'cohorts',
  'data management',
  'session recordings',
  'insights',
  'dashboards',
] as const;

export type AccessResource = (typeof ACCESS_RESOURCES)[number];

@Entity('organization_resource_access')
export class OrganizationResourceAccessEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column('uuid', { name: 'organization_id' })
  organizationId: string;

  @Column('text')
  resource: AccessResource;

  @Column('smallint', { name: 'access_level' })
  accessLevel: number;

  @Column('integer', { name: 'created_by_id', nullable: true })
  createdById: number | null;

  @ManyToOne(() => UserEntity, { nullable: true })
  @JoinColumn({ name: 'created_by_id' })
  createdBy?: UserEntity | null;

  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;

  @Column('timestamptz', { name: 'updated_at' })
  updatedAt: Date;
}

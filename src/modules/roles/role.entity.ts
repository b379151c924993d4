import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { UserEntity } from '../users/user.entity';

/** A named group of users in an organization with a feature-flag access level (21 view, 37 edit). */
@Entity('role')
export class RoleEntity {
  @PrimaryColumn('uuid')
  id: string;

  @Column('uuid', { name: 'organization_id' })
  organizationId: string;

  @Column('text')
  name: string;

  @Column('smallint', { name: 'feature_flags_access_level' })
  featureFlagsAccessLevel: number;

  @Column('integer', { name: 'created_by_id', nullable: true })
  createdById: number | null;

  @ManyToOne(() => UserEntity, { nullable: true })
  @JoinColumn({ name: 'created_by_id' })
  createdBy?: UserEntity | null;

  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;
}

import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** A role's access to one feature flag (PostHog `FeatureFlagRoleAccess`). */
@Entity('feature_flag_role_access')
export class FlagRoleGrantEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column('integer', { name: 'feature_flag_id' })
  featureFlagId: number;

  @Column('uuid', { name: 'role_id' })
  roleId: string;

  @Column('timestamptz', { name: 'added_at' })
  addedAt: Date;

  @Column('timestamptz', { name: 'updated_at' })
  updatedAt: Date;
}

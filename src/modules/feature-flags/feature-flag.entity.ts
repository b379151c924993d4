import { Column, Entity, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { UserEntity } from '../users/user.entity';

/** A feature flag of a project. `name` holds the description (PostHog keeps the field name). */
@Entity('feature_flag')
export class FeatureFlagEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column('integer', { name: 'project_id' })
  projectId: number;

  @Column('text')
  key: string;

  @Column('text')
  name: string;

  /** Stored as written; served through `servedFilters` (legacy forms normalised). */
  @Column('jsonb')
  filters: Record<string, unknown>;

  @Column('boolean')
  deleted: boolean;

  @Column('boolean')
  active: boolean;

  @Column('boolean', { name: 'ensure_experience_continuity' })
  ensureExperienceContinuity: boolean;

  @Column('jsonb', { name: 'rollback_conditions', nullable: true })
  rollbackConditions: unknown;

  @Column('boolean', { name: 'performed_rollback', nullable: true })
  performedRollback: boolean | null;

  @Column('text', { array: true })
  tags: string[];

  /** 1 on create, +1 per update: the optimistic-concurrency token of PATCH. */
  @Column('integer')
  version: number;

  @Column('integer', { name: 'created_by_id', nullable: true })
  createdById: number | null;

  @ManyToOne(() => UserEntity, { nullable: true })
  @JoinColumn({ name: 'created_by_id' })
  createdBy?: UserEntity | null;

  @Column('integer', { name: 'last_modified_by_id', nullable: true })
  lastModifiedById: number | null;

  @ManyToOne(() => UserEntity, { nullable: true })
  @JoinColumn({ name: 'last_modified_by_id' })
  lastModifiedBy?: UserEntity | null;

  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;

  @Column('timestamptz', { name: 'updated_at' })
  updatedAt: Date;
}

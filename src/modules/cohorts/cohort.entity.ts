import { Column, Entity, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { UserEntity } from '../users/user.entity';

/** A group of persons, by property filters (dynamic) or by a stored list (static). */
@Entity('cohort')
export class CohortEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column('integer', { name: 'project_id' })
  projectId: number;

  @Column('text')
  name: string;

  @Column('text')
  description: string;

  /** `{properties?: <AND/OR tree>, groups?: <legacy groups>}`, as last written (see cohort-definition.ts). */
  @Column('jsonb')
  filters: Record<string, unknown>;

  @Column('boolean', { name: 'is_static' })
  isStatic: boolean;

  @Column('boolean')
  deleted: boolean;

  @Column('integer', { name: 'created_by_id', nullable: true })
  createdById: number | null;

  @ManyToOne(() => UserEntity, { nullable: true })
  @JoinColumn({ name: 'created_by_id' })
  createdBy?: UserEntity | null;

  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;

  /** Any write, static member changes included. */
  @Column('timestamptz', { name: 'last_modified_at' })
  lastModifiedAt: Date;
}

import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

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

  @Column('jsonb')
  filters: Record<string, unknown>;

  @Column('boolean', { name: 'is_static' })
  isStatic: boolean;

  @Column('boolean')
  deleted: boolean;

  @Column('integer', { name: 'created_by_id', nullable: true })
  createdById: number | null;

  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;
}

import { Column, Entity, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { UserEntity } from '../users/user.entity';

/** A saved insight: a query (an InsightVizNode) or a legacy filter, with its name and who made and last changed it. */
@Entity('insight')
export class SavedInsightEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column('integer', { name: 'project_id' })
  projectId: number;

  @Column('text', { name: 'short_id' })
  shortId: string;

  @Column('text', { nullable: true })
  name: string | null;

  @Column('text', { name: 'derived_name', nullable: true })
  derivedName: string | null;

  @Column('text', { nullable: true })
  description: string | null;

  @Column('jsonb', { nullable: true })
  query: Record<string, unknown> | null;

  @Column('jsonb')
  filters: Record<string, unknown>;

  @Column('boolean')
  favorited: boolean;

  @Column('boolean')
  saved: boolean;

  @Column('boolean')
  deleted: boolean;

  @Column('integer', { nullable: true })
  order: number | null;

  @Column('text', { array: true })
  tags: string[];

  @Column('integer', { name: 'created_by_id', nullable: true })
  createdById: number | null;

  @ManyToOne(() => UserEntity, { nullable: true })
  @JoinColumn({ name: 'created_by_id' })
  createdBy?: UserEntity | null;

  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;

  @Column('timestamptz', { name: 'updated_at' })
  updatedAt: Date;

  @Column('timestamptz', { name: 'last_modified_at' })
  lastModifiedAt: Date;

  @Column('integer', { name: 'last_modified_by_id', nullable: true })
  lastModifiedById: number | null;

  @ManyToOne(() => UserEntity, { nullable: true })
  @JoinColumn({ name: 'last_modified_by_id' })
  lastModifiedBy?: UserEntity | null;
}

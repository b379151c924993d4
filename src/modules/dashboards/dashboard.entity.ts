import { Column, Entity, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { UserEntity } from '../users/user.entity';

/** A dashboard: named, pinnable, with filters that override its tiles' (the tiles are dashboard-tiles'). */
@Entity('dashboard')
export class DashboardEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column('integer', { name: 'project_id' })
  projectId: number;

  @Column('text', { nullable: true })
  name: string | null;

  @Column('text')
  description: string;

  @Column('boolean')
  pinned: boolean;

  @Column('jsonb')
  filters: Record<string, unknown>;

  @Column('text', { array: true })
  tags: string[];

  @Column('text', { name: 'creation_mode' })
  creationMode: string;

  @Column('boolean')
  deleted: boolean;

  @Column('integer', { name: 'created_by_id', nullable: true })
  createdById: number | null;

  @ManyToOne(() => UserEntity, { nullable: true })
  @JoinColumn({ name: 'created_by_id' })
  createdBy?: UserEntity | null;

  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;

  @Column('timestamptz', { name: 'last_accessed_at', nullable: true })
  lastAccessedAt: Date | null;
}

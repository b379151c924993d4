import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { UserEntity } from '../users/user.entity';
import type { ActivityChange } from './activity-changes';

export interface ActivityDetail {
  changes: ActivityChange[] | null;
  trigger: unknown;
  name: string | null;
  short_id: string | null;
  type?: string | null;
}

/** Who changed what, when: one row per create/update of a logged resource. */
@Entity('activity_log')
export class ActivityLogEntity {
  @PrimaryColumn('uuid')
  id: string;

  @Column('uuid', { name: 'organization_id' })
  organizationId: string;

  @Column('integer', { name: 'project_id', nullable: true })
  projectId: number | null;

  @Column('integer', { name: 'user_id', nullable: true })
  userId: number | null;

  @ManyToOne(() => UserEntity, { nullable: true })
  @JoinColumn({ name: 'user_id' })
  user?: UserEntity | null;

  @Column('boolean', { name: 'is_system' })
  isSystem: boolean;

  @Column('text')
  activity: string;

  @Column('text')
  scope: string;

  @Column('text', { name: 'item_id' })
  itemId: string;

  @Column('jsonb')
  detail: ActivityDetail;

  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;
}

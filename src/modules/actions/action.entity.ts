import { Column, Entity, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { UserEntity } from '../users/user.entity';
import type { ActionStep } from './action-steps';

/** A named group of events: any event matching one of its steps (see action-steps.ts). */
@Entity('action')
export class ActionEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column('integer', { name: 'project_id' })
  projectId: number;

  @Column('text')
  name: string;

  @Column('text')
  description: string;

  @Column('text', { array: true })
  tags: string[];

  @Column('boolean', { name: 'post_to_slack' })
  postToSlack: boolean;

  @Column('text', { name: 'slack_message_format' })
  slackMessageFormat: string;

  /** The steps as written through parseSteps: every field present. */
  @Column('jsonb')
  steps: ActionStep[];

  @Column('boolean')
  deleted: boolean;

  @Column('timestamptz', { name: 'pinned_at', nullable: true })
  pinnedAt: Date | null;

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

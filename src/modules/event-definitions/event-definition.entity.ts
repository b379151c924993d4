import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity('event_definition')
export class EventDefinitionEntity {
  @PrimaryColumn('uuid')
  id: string;

  @Column('integer', { name: 'project_id' })
  projectId: number;

  @Column('text')
  name: string;

  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;

  @Column('timestamptz', { name: 'last_seen_at', nullable: true })
  lastSeenAt: Date | null;
}

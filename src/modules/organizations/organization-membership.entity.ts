import { Column, Entity, PrimaryColumn } from 'typeorm';

/** PostHog's membership levels: member=1, admin=8, owner=15. */
export enum MembershipLevel {
  Member = 1,
  Admin = 8,
  Owner = 15,
}

@Entity('organization_membership')
export class OrganizationMembershipEntity {
  @PrimaryColumn('uuid')
  id: string;

  @Column('uuid', { name: 'organization_id' })
  organizationId: string;

  @Column('integer', { name: 'user_id' })
  userId: number;

  @Column('smallint')
  level: MembershipLevel;

  @Column('timestamptz', { name: 'joined_at' })
  joinedAt: Date;
}

import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { CallerUser } from '../../common/auth/principal';

@Entity('app_user')
export class UserEntity implements CallerUser {
  @PrimaryGeneratedColumn()
  id: number;

  @Column('uuid')
  uuid: string;

  /** The distinct_id this user would have in PostHog's own analytics. */
  @Column('text', { name: 'distinct_id' })
  distinctId: string;

  @Column('text')
  email: string;

  @Column('text', { name: 'first_name' })
  firstName: string;

  @Column('text', { name: 'last_name' })
  lastName: string;

  @Column('boolean', { name: 'is_active' })
  isActive: boolean;

  @Column('boolean', { name: 'is_staff' })
  isStaff: boolean;

  @Column('uuid', { name: 'current_organization_id', nullable: true })
  currentOrganizationId: string | null;

  @Column('integer', { name: 'current_project_id', nullable: true })
  currentProjectId: number | null;

  @Column('timestamptz', { name: 'date_joined' })
  dateJoined: Date;

  /**
   * The sign-in password's scrypt hash (sessions/passwords.ts); null until one is set. Not loaded with the user
   * (`select: false`): only sign-in reads it, through UsersService.signInRecord.
   */
  @Column('text', { name: 'password_hash', nullable: true, select: false })
  passwordHash?: string | null;
}

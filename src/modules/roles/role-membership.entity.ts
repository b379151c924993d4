import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { UserEntity } from '../users/user.entity';

@Entity('role_membership')
export class RoleMembershipEntity {
  @PrimaryColumn('uuid')
  id: string;

  @Column('uuid', { name: 'role_id' })
  roleId: string;

  @Column('integer', { name: 'user_id' })
  userId: number;

  @ManyToOne(() => UserEntity)
  @JoinColumn({ name: 'user_id' })
  user?: UserEntity;

  @Column('timestamptz', { name: 'joined_at' })
  joinedAt: Date;

  @Column('timestamptz', { name: 'updated_at' })
  updatedAt: Date;
}

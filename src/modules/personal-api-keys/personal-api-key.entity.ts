import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity('personal_api_key')
export class PersonalApiKeyEntity {
  @PrimaryColumn('text')
  id: string;

  @Column('integer', { name: 'user_id' })
  userId: number;

  @Column('text')
  label: string;

  /** `sha256$<hex>`: the secret itself is never stored. */
  @Column('text', { name: 'secure_value' })
  secureValue: string;

  @Column('text', { name: 'mask_value' })
  maskValue: string;

  /** `['*']` or `object:read|write` entries; null or empty means a legacy key without scope checks. */
  @Column('text', { array: true, nullable: true })
  scopes: string[] | null;

  /** Project ids the key is limited to; null means every project the user can access. */
  @Column('integer', { name: 'scoped_projects', array: true, nullable: true })
  scopedProjects: number[] | null;

  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;

  @Column('timestamptz', { name: 'last_used_at', nullable: true })
  lastUsedAt: Date | null;

  @Column('timestamptz', { name: 'last_rolled_at', nullable: true })
  lastRolledAt: Date | null;
}

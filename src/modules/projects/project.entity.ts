import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** A project is PostHog's "team": the tenant every event, person and flag belongs to. */
@Entity('project')
export class ProjectEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column('uuid')
  uuid: string;

  @Column('uuid', { name: 'organization_id' })
  organizationId: string;

  @Column('text')
  name: string;

  /** The public project API key (`phc_…`), stored in clear because it is public and write-only. */
  @Column('text', { name: 'api_token' })
  apiToken: string;

  @Column('text')
  timezone: string;

  @Column('jsonb', { name: 'app_urls' })
  appUrls: string[];

  /** Property filters that `filter_test_accounts` adds to insights (PostHog's test_account_filters). */
  @Column('jsonb', { name: 'test_account_filters' })
  testAccountFilters: Array<Record<string, unknown>>;

  /** Regex rules that paths with `path_replacements=true` apply to path items (PostHog's path_cleaning_filters). */
  @Column('jsonb', { name: 'path_cleaning_filters' })
  pathCleaningFilters: Array<Record<string, unknown>>;

  @Column('boolean', { name: 'ingested_event' })
  ingestedEvent: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

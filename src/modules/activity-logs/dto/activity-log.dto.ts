import type { ActivityChange } from '../activity-changes';

export class ActivityUserDto {
  first_name: string;
  email: string | null;
  is_system?: boolean;
}

export class ActivityDetailDto {
  changes: ActivityChange[] | null;
  trigger: unknown;
  name: string | null;
  short_id: string | null;
}

export class ActivityLogEntryDto {
  id: string;
  user: ActivityUserDto | null;
  activity: string;
  created_at: string;
  scope: string;
  item_id: string;
  detail: ActivityDetailDto;
}

/** PostHog's activity page: page-numbered, with `total_count` instead of `count`. */
export class ActivityLogPageDto {
  results: ActivityLogEntryDto[];
  next: string | null;
  previous: string | null;
  total_count: number;
}

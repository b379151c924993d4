export class PersonalApiKeyDto {
  id: string;
  label: string;
  /** The secret: only in the reply that creates the key, null afterwards. */
  value: string | null;
  mask_value: string;
  created_at: string;
  last_used_at: string | null;
  user_id: number;
  scopes: string[];
  scoped_teams: number[];
  scoped_organizations: string[];
  last_rolled_at: string | null;
}

export class PersonalApiKeyPageDto {
  count: number;
  next: string | null;
  previous: string | null;
  results: PersonalApiKeyDto[];
}

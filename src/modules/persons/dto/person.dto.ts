import { IsDefined, IsObject } from 'class-validator';

export class PersonDto {
  id: number;
  uuid: string;
  /** The email property, else the name property, else the first distinct id. */
  name: string;
  distinct_ids: string[];
  properties: Record<string, unknown>;
  created_at: string;
  is_identified: boolean;
}

/** The person list: no `count` (PostHog's person list never counts). */
export class PersonPageDto {
  next: string | null;
  previous: string | null;
  results: PersonDto[];
}

/** Create and PATCH: only `properties` is read (PATCH merges it like `$set`). */
export class PersonPropertiesDto {
  @IsDefined()
  @IsObject()
  properties: Record<string, unknown>;
}

export class PersonPropertyCountDto {
  name: string;
  count: number;
}

export class PersonCohortDto {
  id: number;
  name: string;
  description: string;
  is_static: boolean;
  filters: Record<string, unknown>;
  deleted: boolean;
  created_at: string;
}

export class PersonCohortListDto {
  results: PersonCohortDto[];
}

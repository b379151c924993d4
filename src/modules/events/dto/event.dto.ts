import type { ElementJson } from '../elements';

export class EventPersonDto {
  is_identified: boolean;
  /** The person's first distinct id only, as PostHog's event serializer. */
  distinct_ids: string[];
  /** Only `email`, `name` and `username`. */
  properties: Record<string, unknown>;
}

export class EventDto {
  /** The event uuid. */
  id: string;
  distinct_id: string;
  properties: Record<string, unknown>;
  event: string;
  /** ISO 8601 with `+00:00`, microseconds only when not zero. */
  timestamp: string;
  person: EventPersonDto | null;
  elements: ElementJson[];
  elements_chain: string;
}

/** No count and no previous: `next` carries a keyset cursor (`before` + `before_id`). */
export class EventPageDto {
  next: string | null;
  results: EventDto[];
}

export class EventValueDto {
  name: string;
}

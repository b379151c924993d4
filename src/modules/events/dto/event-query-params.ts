import { applyDecorators } from '@nestjs/common';
import { ApiQuery, ApiQueryOptions } from '@nestjs/swagger';

/**
 * The query parameters of the event routes, for the OpenAPI document only: the controller reads the
 * raw query and event-requests.ts parses it, because PostHog's parameters (JSON lists, cursors tied to
 * an order, presence-only flags) do not map onto a whitelisting DTO.
 */
const INCLUDE_PERSON: ApiQueryOptions = {
  name: 'include_person',
  required: false,
  schema: { type: 'boolean', default: true },
  description: 'Fill in `person` (the default); `false` or `0` leaves it null. Anything but a boolean → 400.',
};

const LIST_PARAMETERS: ApiQueryOptions[] = [
  { name: 'event', required: false, type: String, description: 'Exact event name.' },
  { name: 'distinct_id', required: false, type: String },
  { name: 'person_id', required: false, type: String, description: 'Person id or uuid: events of all its distinct ids.' },
  { name: 'properties', required: false, type: String, description: 'JSON list of property filters, or an AND/OR group.' },
  { name: 'after', required: false, type: String, description: 'Exclusive lower bound: ISO 8601 or relative (`-1d`).' },
  { name: 'before', required: false, type: String, description: 'Exclusive upper bound; defaults to now + 5 s.' },
  { name: 'before_id', required: false, type: String, format: 'uuid', description: 'Keyset cursor of newest-first pages (with `before`).' },
  { name: 'after_id', required: false, type: String, format: 'uuid', description: 'Keyset cursor of oldest-first pages (with `after`).' },
  {
    name: 'orderBy',
    required: false,
    type: String,
    example: '["timestamp"]',
    description: 'JSON list: `["-timestamp"]` (default, newest first) or `["timestamp"]` (oldest first).',
  },
  { name: 'action_id', required: false, type: Number, description: 'A missing action gives an empty list; filtering by an existing action is not supported yet (400): use an insight.' },
  { name: 'limit', required: false, type: Number, description: 'Default 100, at most 1000 (CSV: 1000 by default, at most 10,000).' },
  { name: 'offset', required: false, type: Number, description: 'Deprecated; `next` pages by cursor instead.' },
  { name: 'format', required: false, enum: ['json', 'csv'] },
  INCLUDE_PERSON,
];

export const ApiEventListQuery = () => applyDecorators(...LIST_PARAMETERS.map((options) => ApiQuery(options)));

export const ApiIncludePersonQuery = () => ApiQuery(INCLUDE_PERSON);

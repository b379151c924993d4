import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, ApiQuery, ApiQueryOptions } from '@nestjs/swagger';

/**
 * The analytics routes' parameters, for the OpenAPI document only: controllers read the raw query (and
 * body) and the parsers validate it, because PostHog's filters are JSON in query strings, merged with a
 * body, which a whitelisting DTO cannot express.
 */
const text = (name: string, description: string, example?: string): ApiQueryOptions => ({ name, required: false, type: String, description, example });

const FILTER: ApiQueryOptions[] = [
  text('events', 'JSON list of series: {id (event name, null = all events), name, custom_name, order, math, math_property, math_group_type_index, properties}.', '[{"id":"$pageview","math":"dau"}]'),
  text('actions', 'JSON list of action series: {id (an action id), order, custom_name, math, math_property, math_group_type_index, properties}; sorted with events by order.', '[{"id":12,"type":"actions"}]'),
  text('date_from', 'Start: a date, a date and time, relative (-7d, -24h, -1m, dStart, mStart, yStart) or all. Default -7d.'),
  text('date_to', 'End: a date (the whole day), a date and time, or relative. Default now.'),
  { name: 'explicit_date', required: false, type: Boolean, description: 'true: take date_from/date_to exactly instead of rounding them to the interval.' },
  { name: 'interval', required: false, enum: ['minute', 'hour', 'day', 'week', 'month'], description: 'Bucket size in the project timezone (weeks start on the project\'s week_start_day); minute for trends only. Default day.' },
  text('properties', 'JSON list of property filters (event, person, cohort) or an AND/OR group, applied to every series.'),
  { name: 'filter_test_accounts', required: false, type: Boolean },
  text('breakdown', 'Property name (or JSON list of names), or cohort ids with breakdown_type=cohort.'),
  { name: 'breakdown_type', required: false, enum: ['event', 'person', 'group', 'cohort'] },
  text('breakdowns', 'JSON list of up to 3 {property, type, group_type_index}: one line per combination of values.'),
  { name: 'breakdown_group_type_index', required: false, type: Number },
  { name: 'breakdown_limit', required: false, type: Number, description: 'Breakdown values per page (default 25, WorldMap 300, at most 1000); `next` gives the following ones.' },
  { name: 'compare', required: false, type: Boolean, description: 'Add the previous period of the same length (compare_label current/previous).' },
  text('formula', 'Combine series by letter: A+B, (A-B)/A*100. Division by zero gives 0.'),
  { name: 'display', required: false, enum: ['ActionsLineGraph', 'ActionsLineGraphCumulative', 'ActionsAreaGraph', 'ActionsBar', 'ActionsStackedBar', 'ActionsTable', 'ActionsPie', 'ActionsBarValue', 'BoldNumber', 'WorldMap'] },
  { name: 'shown_as', required: false, enum: ['Volume', 'Stickiness', 'Lifecycle'] },
  { name: 'insight', required: false, enum: ['TRENDS', 'STICKINESS', 'LIFECYCLE'] },
  { name: 'aggregation_group_type_index', required: false, type: Number, description: 'Count groups of this type instead of persons.' },
  { name: 'refresh', required: false, type: Boolean, description: 'Recompute instead of serving the cached result.' },
];

const TARGET: ApiQueryOptions[] = [
  text('entity_id', 'Event of the series (with entity_math), unless entity_order picks it.'),
  { name: 'entity_type', required: false, enum: ['events', 'actions'] },
  text('entity_math', 'Math of the series. Default total.'),
  { name: 'entity_order', required: false, type: Number, description: 'Index of the series in the sorted events list.' },
  text('search', 'Only persons whose email or name, or whose event distinct id, contains this text.'),
  { name: 'limit', required: false, type: Number, description: 'Default 100.' },
  { name: 'offset', required: false, type: Number },
];

export const ApiInsightFilterQuery = () => applyDecorators(...FILTER.map((o) => ApiQuery(o)));
export const ApiTrendPersonsQuery = () =>
  applyDecorators(...[...FILTER, ...TARGET, text('breakdown_value', 'The breakdown line (a JSON list for several properties, a cohort id or all).')].map((o) => ApiQuery(o)));
export const ApiStickinessPersonsQuery = () =>
  applyDecorators(...[...FILTER, ...TARGET, { name: 'stickiness_days', required: true, type: Number, description: 'Persons active in exactly this many intervals.' }].map((o) => ApiQuery(o)));
export const ApiLifecyclePersonsQuery = () =>
  applyDecorators(
    ...[
      ...FILTER,
      ...TARGET,
      text('target_date', 'Required: a date or time inside the period to list.'),
      { name: 'lifecycle_type', required: true, enum: ['new', 'returning', 'resurrecting', 'dormant'] },
    ].map((o) => ApiQuery(o)),
  );

/** A funnel reads the common filter's steps, dates and filters; breakdowns and compare are not funnel parameters here. */
const FUNNEL_FILTER: ApiQueryOptions[] = [
  ...FILTER.filter((o) => ['events', 'actions', 'date_from', 'date_to', 'explicit_date', 'properties', 'filter_test_accounts', 'aggregation_group_type_index', 'refresh'].includes((o as { name?: string }).name ?? '')),
  { name: 'funnel_order_type', required: false, enum: ['ordered', 'strict', 'unordered'], description: 'Default ordered.' },
  { name: 'funnel_window_interval', required: false, type: Number, description: 'Conversion window, counted from the first step. Default 14.' },
  { name: 'funnel_window_interval_unit', required: false, enum: ['second', 'minute', 'hour', 'day', 'week', 'month'], description: 'Default day.' },
  { name: 'funnel_window_days', required: false, type: Number, description: 'Legacy window in days (when funnel_window_interval is not given).' },
  text('exclusions', 'JSON list of {id (event), funnel_from_step, funnel_to_step, properties}: a run with that event between those steps does not count.'),
  { name: 'funnel_viz_type', required: false, enum: ['steps', 'trends', 'time_to_convert'], description: 'Default steps (display=ActionsLineGraph: trends).' },
  { name: 'interval', required: false, enum: ['hour', 'day', 'week', 'month'], description: 'Funnel trends: the entrance periods. Default day.' },
  { name: 'funnel_from_step', required: false, type: Number, description: 'Trends and time to convert: the 0-based step conversion is measured from. Default 0.' },
  { name: 'funnel_to_step', required: false, type: Number, description: 'Trends and time to convert: the 0-based step conversion is measured to. Default the last.' },
  { name: 'bin_count', required: false, type: Number, description: 'Time to convert: bins (1–90). Default from the number of actors.' },
  text('breakdown', 'Property name (or JSON list of names), or cohort ids with breakdown_type=cohort.'),
  { name: 'breakdown_type', required: false, enum: ['event', 'person', 'group', 'cohort'] },
  text('breakdowns', 'JSON list of up to 3 {property, type, group_type_index}.'),
  { name: 'breakdown_group_type_index', required: false, type: Number },
  { name: 'breakdown_limit', required: false, type: Number, description: 'Breakdown lines (default 25, at most 1000), most actors first.' },
  { name: 'breakdown_attribution_type', required: false, enum: ['first_touch', 'last_touch', 'all_events', 'step'], description: 'Which event\'s value an actor counts under. Default first_touch.' },
  { name: 'breakdown_attribution_value', required: false, type: Number, description: 'With breakdown_attribution_type=step: the 0-based step.' },
];

export const ApiFunnelFilterQuery = () => applyDecorators(...FUNNEL_FILTER.map((o) => ApiQuery(o)));
export const ApiFunnelPersonsQuery = () =>
  applyDecorators(
    ...[
      ...FUNNEL_FILTER,
      { name: 'funnel_step', required: false, type: Number, description: 'n > 0: reached at least step n; n < -1: dropped off right before step |n|. Default 1.' },
      text('funnel_custom_steps', 'JSON list of exact step counts (e.g. [1, 3]); overrides funnel_step.'),
      text('funnel_step_breakdown', 'The breakdown line whose persons to list (its breakdown_value).'),
      text('entrance_period_start', 'Funnel trends: the entrance period whose persons to list (required there).'),
      { name: 'drop_off', required: false, type: Boolean, description: 'Funnel trends: list those who dropped off instead of those who converted.' },
      text('search', 'Only persons whose email, name or one of whose distinct ids contains this text.'),
      { name: 'limit', required: false, type: Number, description: 'Default 100.' },
      { name: 'offset', required: false, type: Number },
    ].map((o) => ApiQuery(o)),
  );

const CORRELATION: ApiQueryOptions[] = [
  { name: 'funnel_correlation_type', required: false, enum: ['events', 'properties', 'event_with_properties'], description: 'Default events.' },
  text('funnel_correlation_exclude_event_names', 'JSON list of event names left out of event correlation.'),
  text('funnel_correlation_event_names', 'event_with_properties: JSON list of the events whose properties are correlated (required).'),
  text('funnel_correlation_event_exclude_property_names', 'event_with_properties: JSON list of property names left out.'),
  text('funnel_correlation_names', 'properties: JSON list of person (or group) property names, or ["$all"] (required).'),
  text('funnel_correlation_exclude_names', 'properties: JSON list of property names left out.'),
];

const CORRELATION_PERSONS: ApiQueryOptions[] = [
  text('funnel_correlation_person_entity', 'The row\'s event: {"id": "<event>", "type": "events", "properties": [...]}.'),
  text('funnel_correlation_property_values', 'The row\'s property values: [{"key", "value", "type": "person", "operator": "exact"}].'),
  text('funnel_correlation_person_converted', 'true: converted persons; false: those who dropped off; absent: both.'),
  { name: 'funnel_correlation_person_limit', required: false, type: Number, description: 'Default 100.' },
  { name: 'funnel_correlation_person_offset', required: false, type: Number },
];

export const ApiCorrelationQuery = () => applyDecorators(...[...FUNNEL_FILTER, ...CORRELATION].map((o) => ApiQuery(o)));
export const ApiCorrelationPersonsQuery = () => applyDecorators(...[...FUNNEL_FILTER, ...CORRELATION_PERSONS].map((o) => ApiQuery(o)));

const RETENTION: ApiQueryOptions[] = [
  text('target_entity', 'The event that puts an actor in a cohort: {"id": "<event>", "type": "events", "properties": [...]}. Default $pageview.'),
  text('returning_entity', 'The event that counts as coming back. Default the target entity.'),
  { name: 'retention_type', required: false, enum: ['retention_recurring', 'retention_first_time'], description: 'Default retention_recurring.' },
  { name: 'period', required: false, enum: ['Hour', 'Day', 'Week', 'Month'], description: 'Default Day.' },
  { name: 'total_intervals', required: false, type: Number, description: 'Cohorts (and periods after each), 1–100. Default 11.' },
  text('date_to', 'The last cohort is the period holding this date. Default now; date_from is derived.'),
  text('properties', 'JSON list of property filters (event, person, cohort) or an AND/OR group.'),
  { name: 'filter_test_accounts', required: false, type: Boolean },
  text('breakdown', 'One property to break down by (one line per value).'),
  { name: 'breakdown_type', required: false, enum: ['event', 'person', 'group'] },
  { name: 'breakdown_group_type_index', required: false, type: Number },
  { name: 'breakdown_limit', required: false, type: Number, description: 'Lines shown (default 25), the largest first.' },
  { name: 'aggregation_group_type_index', required: false, type: Number, description: 'Count groups of this type instead of persons.' },
  { name: 'refresh', required: false, type: Boolean },
];

export const ApiRetentionQuery = () => applyDecorators(...RETENTION.map((o) => ApiQuery(o)));
export const ApiRetentionPersonsQuery = () =>
  applyDecorators(
    ...[
      ...RETENTION,
      { name: 'selected_interval', required: false, type: Number, description: 'The cohort (0-based). Default 0.' },
      text('breakdown_values', 'JSON list: [i] for cohort i, or [value] for a breakdown line.'),
      { name: 'limit', required: false, type: Number, description: 'Default 100.' },
      { name: 'offset', required: false, type: Number },
    ].map((o) => ApiQuery(o)),
  );

const PATHS: ApiQueryOptions[] = [
  { name: 'path_type', required: false, enum: ['$pageview', '$screen', 'custom_event'], description: 'Which events make the path (when include_event_types is not given). Default $pageview.' },
  text('include_event_types', 'JSON list of $pageview, $screen, custom_event (every event not starting with $).'),
  text('include_custom_events', 'JSON list of event names to include as path items.'),
  text('exclude_events', 'JSON list of path items (URLs, screens, events or grouping patterns) to leave out.'),
  text('start_point', 'Paths start at this item.'),
  text('end_point', 'Paths end at this item.'),
  { name: 'step_limit', required: false, type: Number, description: 'Steps per path, 1–20. Default 5.' },
  { name: 'edge_limit', required: false, type: Number, description: 'Edges shown, 1–10000. Default 50 (every edge with both a start and an end point).' },
  { name: 'min_edge_weight', required: false, type: Number },
  { name: 'max_edge_weight', required: false, type: Number },
  text('path_groupings', 'JSON list of patterns with * wildcards: matching items become the pattern.'),
  { name: 'path_replacements', required: false, type: Boolean, description: 'Apply the project\'s path_cleaning_filters.' },
  text('local_path_cleaning_filters', 'JSON list of {regex, alias}: each regex (RE2) replaces what it matches by the alias, in order.'),
  { name: 'funnel_paths', required: false, enum: ['funnel_path_after_step', 'funnel_path_before_step', 'funnel_path_between_steps'] },
  text('funnel_filter', 'With funnel_paths: the funnel (events, funnel_step, window, …) as a JSON object.'),
  text('date_from', 'Default -7d.'),
  text('date_to', 'Default now.'),
  text('properties', 'JSON list of property filters or an AND/OR group.'),
  { name: 'filter_test_accounts', required: false, type: Boolean },
  { name: 'refresh', required: false, type: Boolean },
];

export const ApiPathsQuery = () => applyDecorators(...PATHS.map((o) => ApiQuery(o)));
export const ApiPathPersonsQuery = () =>
  applyDecorators(
    ...[
      ...PATHS,
      text('path_start_key', 'Persons with an edge from this key (e.g. 1_/home).'),
      text('path_end_key', 'Persons with a step at this key (with path_start_key: the edge between them).'),
      text('path_dropoff_key', 'Persons whose path ended at this key.'),
      { name: 'limit', required: false, type: Number, description: 'Default 100.' },
      { name: 'offset', required: false, type: Number },
    ].map((o) => ApiQuery(o)),
  );

/** The project's zone and when (and whether from cache) a reply was computed. */
export class CachedReplyDto {
  @ApiProperty()
  timezone: string;
  @ApiProperty()
  last_refresh: string;
  @ApiProperty()
  is_cached: boolean;
}

export class PathsReplyDto extends CachedReplyDto {
  @ApiProperty({ description: 'Edges: {source, target, value, average_conversion_time (ms)}, heaviest first.', type: 'array', items: { type: 'object' } })
  result: Array<Record<string, unknown>>;
}

export class RetentionReplyDto extends CachedReplyDto {
  @ApiProperty({ description: 'Rows: {values: [{count, people, people_url}], label ("Day 0"), date, people_url}; with a breakdown {values, label, breakdown_values, people_url}.', type: 'array', items: { type: 'object' } })
  result: Array<Record<string, unknown>>;
}

export class RetentionPersonsReplyDto {
  @ApiProperty({ description: '[{person: SerializedPerson, appearances: [1, 0, 1, …]}], most appearances first.', type: 'array', items: { type: 'object' } })
  result: Array<Record<string, unknown>>;
  @ApiPropertyOptional({ nullable: true })
  next: string | null;
  @ApiProperty()
  missing_persons: number;
}

export class CorrelationReplyDto {
  @ApiProperty({ description: '{events: [{event, success_count, success_people_url, failure_count, failure_people_url, odds_ratio, correlation_type}], skewed}.' })
  result: Record<string, unknown>;
  @ApiProperty()
  last_refresh: string;
  @ApiProperty()
  is_cached: boolean;
}

export class FunnelReplyDto extends CachedReplyDto {
  @ApiProperty({ description: 'Steps (action_id, name, custom_name, order, count, type, average_conversion_time, median_conversion_time, converted_people_url, dropped_people_url; a list of them per line with a breakdown), funnel trends lines {count, data, days, labels}, or time to convert {bins, average_conversion_time}.' })
  result: unknown;
}

export class InsightReplyDto extends CachedReplyDto {
  @ApiProperty({ description: 'Series: action, label, count, data, labels, days, persons_urls (or aggregated_value and persons), breakdown_value, compare_label, status.', type: 'array', items: { type: 'object' } })
  result: Array<Record<string, unknown>>;
  @ApiPropertyOptional({ nullable: true, description: 'The next page of breakdown values.' })
  next: string | null;
}

export class ActorsPageDto {
  @ApiProperty({ type: 'array', items: { type: 'object' }, description: 'type, id (uuid), uuid, created_at, properties, is_identified, name, distinct_ids, matched_recordings, value_at_data_point (trends).' })
  people: Array<Record<string, unknown>>;
  @ApiProperty()
  count: number;
}

export class PlainActorsReplyDto {
  @ApiProperty({ type: [ActorsPageDto] })
  results: ActorsPageDto[];
  @ApiPropertyOptional({ nullable: true })
  next: string | null;
}

export class ActorsReplyDto extends PlainActorsReplyDto {
  @ApiProperty()
  initial: string;
  @ApiProperty()
  missing_persons: number;
  @ApiProperty()
  is_cached: boolean;
  @ApiProperty()
  last_refresh: string;
}

import { ApiError } from '../../../common/errors/api-error';
import { closestWord } from '../../../common/text/did-you-mean';

/**
 * Every parameter PostHog's UI, API and persons URLs send to the legacy insight and persons routes (its filter
 * mixins, https://github.com/PostHog/posthog/tree/master/posthog/models/filters/mixins, and the frontend's filter
 * types), display-only ones included, and this server's own (`formulas`, `breakdown_other_than`). A parameter outside
 * the list is ignored, as PostHog ignores it, unless it looks like a misspelt one (`event` for `events`): that is
 * a 400 saying which was meant, since ignoring it would answer a different question than the one asked.
 */
const KNOWN_PARAMETERS: readonly string[] = [
  'actions', 'aggregation_axis_format', 'aggregation_axis_postfix', 'aggregation_axis_prefix',
  'aggregation_group_type_index', 'bin_count', 'breakdown', 'breakdown_attribution_type',
  'breakdown_attribution_value', 'breakdown_group_type_index', 'breakdown_hide_other_aggregation',
  'breakdown_histogram_bin_count', 'breakdown_limit', 'breakdown_normalize_url', 'breakdown_other_than',
  'breakdown_type', 'breakdown_value', 'breakdown_values', 'breakdowns', 'cache_invalidation_key', 'client_query_id',
  'cohort', 'compare', 'compare_to', 'cumulative', 'custom_events', 'data_warehouse', 'data_warehouse_entities',
  'date_from', 'date_to', 'decimal_places', 'display', 'distinct_id', 'drop_off', 'edge_limit', 'email', 'end_point',
  'entities', 'entityId', 'entity_id', 'entity_math', 'entity_order', 'entity_type', 'entrance_period_start',
  'events', 'exclude_events', 'exclusions', 'explicit_date', 'export_insight_id', 'export_name',
  'filter_test_accounts', 'formula', 'formulas', 'from_dashboard', 'funnel_advanced', 'funnel_aggregate_by_hogql',
  'funnel_correlation_event_exclude_property_names', 'funnel_correlation_event_names',
  'funnel_correlation_exclude_event_names', 'funnel_correlation_exclude_names', 'funnel_correlation_names',
  'funnel_correlation_person_converted', 'funnel_correlation_person_entity', 'funnel_correlation_person_limit',
  'funnel_correlation_person_offset', 'funnel_correlation_property_values', 'funnel_correlation_type',
  'funnel_custom_steps', 'funnel_filter', 'funnel_from_step', 'funnel_order_type', 'funnel_paths', 'funnel_step',
  'funnel_step_breakdown', 'funnel_step_reference', 'funnel_to_step', 'funnel_viz_type', 'funnel_window_days',
  'funnel_window_interval', 'funnel_window_interval_unit', 'hiddenLegendKeys', 'hidden_legend_breakdowns',
  'hidden_legend_indexes', 'hidden_legend_keys', 'include_custom_events', 'include_event_types',
  'include_recordings', 'include_total', 'insight', 'interval', 'is_csv_export', 'is_simplified', 'key_identifier',
  'label', 'layout', 'lifecycle_type', 'limit', 'local_path_cleaning_filters', 'max_edge_weight',
  'mean_retention_calculation', 'min_decimal_places', 'min_edge_weight', 'new_entity', 'offset', 'path_dropoff_key',
  'path_end_key', 'path_groupings', 'path_replacements', 'path_start_key', 'path_type', 'paths_hogql_expression',
  'people_action', 'people_day', 'period', 'properties', 'property_groups', 'refresh', 'retention_reference',
  'retention_type', 'returning_entity', 'sampling_factor', 'search', 'selected_interval', 'selector', 'session',
  'session_id', 'show_alert_threshold_lines', 'show_label_on_series', 'show_labels_on_series', 'show_legend',
  'show_mean', 'show_multiple_y_axes', 'show_percent_stack_view', 'show_values_on_series', 'shown_as',
  'smoothing_intervals', 'start_point', 'step_limit', 'stickiness_days', 'target_date', 'target_entity',
  'target_events', 'toggledLifecycles', 'total_intervals', 'type', 'updated_after', 'user_sql', 'uuid',
  'y_axis_scale_type',
];
const KNOWN = new Set(KNOWN_PARAMETERS);
/** Slips too far from the word meant for an edit distance to find (a singular for a plural). */
const SLIPS: Readonly<Record<string, string>> = { property: 'properties', action: 'actions', event: 'events' };

/** Refuses a parameter that is not one of PostHog's but looks like one. */
export function checkParameterNames(input: Record<string, unknown>): void {
  for (const name of Object.keys(input)) {
    if (KNOWN.has(name)) continue;
    const meant = Object.hasOwn(SLIPS, name) ? SLIPS[name] : closestWord(name, KNOWN_PARAMETERS);
    if (meant !== null) throw ApiError.validation(`Unknown parameter ${name}: did you mean ${meant}?`, name);
  }
}

import type { CorrelationResult, CorrelationRow } from '../model/funnel-correlation';
import type { InsightQuery } from '../model/insight-query';
import { exactRangeParams } from './funnel.presenter';
import type { CorrelationOptions } from '../parsers/funnel-correlation.parser';
import { personsUrl, PresentContext } from './legacy-insight.presenter';

/**
 * PostHog's correlation rows (`{events: [...], skewed}`): each candidate with its success and failure
 * counts, odds ratio and type, and (legacy door only) the URLs of the persons who converted or dropped
 * off with it: an event entity, an event entity with one property, or person property values.
 */
export function correlationResult(query: InsightQuery, result: CorrelationResult, options: CorrelationOptions, ctx: PresentContext | null) {
  const range = exactRangeParams(query);
  return { events: result.rows.map((row) => correlationRow(row, options, range, ctx)), skewed: result.skewed };
}

/** What identifies a row's persons: `funnel_correlation_person_entity` or `funnel_correlation_property_values`. */
function rowSelector(row: CorrelationRow, options: CorrelationOptions): Record<string, string> {
  if (options.type === 'properties') {
    const [key, ...rest] = row.name.split('::');
    return { funnel_correlation_property_values: JSON.stringify([{ key, value: rest.join('::'), type: 'person', operator: 'exact' }]) };
  }
  if (options.type === 'event_with_properties') {
    const [event, key, ...rest] = row.name.split('::');
    return { funnel_correlation_person_entity: JSON.stringify({ id: event, type: 'events', properties: [{ key, value: rest.join('::'), type: 'event', operator: 'exact' }] }) };
  }
  return { funnel_correlation_person_entity: JSON.stringify({ id: row.name, type: 'events' }) };
}

function correlationRow(row: CorrelationRow, options: CorrelationOptions, range: Record<string, string>, ctx: PresentContext | null) {
  const selector = { ...range, ...rowSelector(row, options) };
  const url = (converted: boolean) => (ctx ? personsUrl(ctx, 'funnel/correlation', { ...selector, funnel_correlation_person_converted: String(converted) }).url : null);
  return {
    event: { event: row.name, properties: {}, elements: [] },
    success_count: row.successCount,
    success_people_url: url(true),
    failure_count: row.failureCount,
    failure_people_url: url(false),
    odds_ratio: row.oddsRatio,
    correlation_type: row.correlationType,
  };
}

/** The next page of a row's persons: the request with `funnel_correlation_person_offset` moved on. */
export function correlationNextUrl(url: URL, offset: number, limit: number): string {
  const next = new URL(url.toString());
  next.searchParams.set('funnel_correlation_person_offset', String(offset + limit));
  next.searchParams.set('funnel_correlation_person_limit', String(limit));
  return next.toString();
}

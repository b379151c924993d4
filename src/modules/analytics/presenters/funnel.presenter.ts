import type { FunnelResult } from '../funnels.service';
import type { InsightQuery } from '../model/insight-query';
import { personsUrl, PresentContext } from './legacy-insight.presenter';

/**
 * PostHog's funnel steps: per step its event, how many actors reached at least it, their conversion
 * times from the step before (seconds; null for the first step), and the URLs of the persons who
 * converted to it and of those who dropped off right before it.
 */
export function legacyFunnelSteps(query: InsightQuery, result: FunnelResult, ctx: PresentContext | null) {
  const unordered = query.funnel?.orderType === 'unordered';
  // The persons URLs carry the insight's range as exact instants, so they list the same actors later.
  const range = { date_from: query.range.from.toISO() ?? '', date_to: query.range.to.toISO() ?? '', explicit_date: 'true' };
  return query.series.map((step, index) => {
    const summary = result.steps[index];
    const urls = ctx
      ? {
          converted_people_url: personsUrl(ctx, 'funnel', { ...range, funnel_step: index + 1 }).url,
          dropped_people_url: index === 0 ? null : personsUrl(ctx, 'funnel', { ...range, funnel_step: -(index + 1) }).url,
        }
      : {};
    return {
      action_id: unordered ? null : step.event,
      name: unordered ? `Completed ${index + 1} step${index === 0 ? '' : 's'}` : step.name,
      custom_name: unordered ? null : step.customName,
      order: index,
      people: [],
      count: summary?.count ?? 0,
      type: 'events',
      average_conversion_time: summary?.averageConversionTime ?? null,
      median_conversion_time: summary?.medianConversionTime ?? null,
      ...urls,
    };
  });
}

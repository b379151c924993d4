import type { FunnelLineKey, FunnelResult } from '../funnels.service';
import { bucketDay, bucketLabel } from '../model/insight-dates';
import type { StepSummary } from '../model/funnel-evaluation';
import type { InsightQuery } from '../model/insight-query';
import { DateTime } from 'luxon';
import { personsUrl, PresentContext } from './legacy-insight.presenter';

/**
 * PostHog's funnel replies. Steps: per step its event, how many actors reached at least it, their
 * conversion times from the step before (seconds; null for the first step), and (legacy door only) the
 * URLs of the persons who converted to it and of those who dropped off right before it; with a
 * breakdown, one such list per line. Funnel trends: one conversion-rate series per line. Time to
 * convert: `{bins, average_conversion_time}`.
 */
export function legacyFunnelResult(query: InsightQuery, result: FunnelResult, ctx: PresentContext | null): unknown {
  if (result.vizType === 'time_to_convert') return { bins: result.histogram.bins, average_conversion_time: result.histogram.averageConversionTime };
  if (result.vizType === 'trends') {
    return result.lines.map((line) => {
      const starts = result.periods.map((key) => DateTime.fromISO(key, { zone: query.timezone }));
      const days = starts.map((start) => bucketDay(start, query.interval));
      return { count: starts.length, data: line.data, days, labels: starts.map((start) => bucketLabel(start, query.interval)), ...breakdownFields(line) };
    });
  }
  const lists = result.lines.map((line) => stepsOf(query, line, ctx));
  return query.breakdown ? lists : (lists[0] ?? []);
}

function breakdownFields(line: FunnelLineKey): Record<string, unknown> {
  return line.value === null ? {} : { breakdown: typeof line.value === 'number' ? line.label : line.value, breakdown_value: line.value };
}

/** A persons URL's range: the insight's own as exact instants, so the URL lists the same actors later. */
export function exactRangeParams(query: InsightQuery): Record<string, string> {
  return { date_from: query.range.from.toISO() ?? '', date_to: query.range.to.toISO() ?? '', explicit_date: 'true' };
}

function stepsOf(query: InsightQuery, line: FunnelLineKey & { steps: StepSummary[] }, ctx: PresentContext | null) {
  const unordered = query.funnel?.orderType === 'unordered';
  const point = {
    ...exactRangeParams(query),
    ...(line.value === null ? {} : { funnel_step_breakdown: JSON.stringify(line.value) }),
  };
  return query.series.map((step, index) => {
    const summary = line.steps[index];
    const urls = ctx
      ? {
          converted_people_url: personsUrl(ctx, 'funnel', { ...point, funnel_step: index + 1 }).url,
          dropped_people_url: index === 0 ? null : personsUrl(ctx, 'funnel', { ...point, funnel_step: -(index + 1) }).url,
        }
      : {};
    return {
      action_id: unordered ? null : (step.action?.id ?? step.event),
      name: unordered ? `Completed ${index + 1} step${index === 0 ? '' : 's'}` : step.name,
      custom_name: unordered ? null : step.customName,
      order: index,
      people: [],
      count: summary?.count ?? 0,
      type: step.action ? 'actions' : 'events',
      average_conversion_time: summary?.averageConversionTime ?? null,
      median_conversion_time: summary?.medianConversionTime ?? null,
      ...urls,
      ...breakdownFields(line),
    };
  });
}

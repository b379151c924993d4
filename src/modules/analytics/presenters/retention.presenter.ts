import type { InsightQuery } from '../model/insight-query';
import type { RetentionCohortLine, RetentionLine } from '../retention.service';
import type { SerializedActor } from './actor.presenter';
import { personsUrl, PresentContext } from './legacy-insight.presenter';

/**
 * PostHog's legacy retention table: per cohort (`label` "Day 0", `date` its start in the project's zone) or per
 * breakdown value, the actors retained 0, 1, … periods later, each cell and row with the URL of the row's persons.
 * The URL carries the table's last instant as `date_to`, so it lists the same cohorts later.
 */
export function retentionTable(query: InsightQuery, lines: RetentionLine[], ctx: PresentContext) {
  const period = query.interval[0].toUpperCase() + query.interval.slice(1);
  const anchor = { date_to: query.range.to.toISO() ?? '' };
  return lines.map((line, i) => {
    const selector: Record<string, string | number> = line.breakdownValue === null ? { selected_interval: i } : { breakdown_values: JSON.stringify([line.breakdownValue]) };
    const url = personsUrl(ctx, 'retention', { ...anchor, ...selector }).url;
    const values = line.values.map((count) => ({ count, people: [], people_url: url }));
    if (line.breakdownValue !== null) {
      return { values, label: line.breakdownValue, breakdown_values: [line.breakdownValue], breakdown_value: line.breakdownValue, people_url: url };
    }
    return { values, label: `${period} ${i}`, date: line.cohortStart?.toISO({ suppressMilliseconds: true }) ?? null, people_url: url };
  });
}

/**
 * PostHog's RetentionQuery results: a row per cohort (`label` "Day 0", `date` its start), every row's values padded to
 * the table's periods; with a breakdown, every cohort of each line in turn, with its `breakdown_value`.
 */
export function retentionQueryRows(query: InsightQuery, lines: RetentionCohortLine[]) {
  const period = query.interval[0].toUpperCase() + query.interval.slice(1);
  return lines.flatMap((line) => line.cohorts.map((values, c) => ({
    values: values.map((count, k) => ({ count, label: `${period} ${k}` })),
    label: `${period} ${c}`,
    date: query.range.from.plus({ [`${query.interval}s`]: c }).toISO({ suppressMilliseconds: true }),
    ...(line.breakdownValue === null ? {} : { breakdown_value: line.breakdownValue }),
  })));
}

/** The persons of a cohort, each with the periods they were there in (`appearances`). */
export function retentionPersonsRows(people: Array<[string, SerializedActor]>, appearances: Map<string, number[]>) {
  return people.map(([id, person]) => ({ person, appearances: appearances.get(id) ?? [] }));
}

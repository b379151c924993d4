import type { InsightQuery } from '../model/insight-query';
import type { RetentionLine } from '../retention.service';
import type { SerializedActor } from './actor.presenter';
import { personsUrl, PresentContext } from './legacy-insight.presenter';

/**
 * PostHog's retention table: per cohort (`label` "Day 0", `date` its start in the project's zone) or per
 * breakdown value, the actors retained 0, 1, … periods later, each cell and row with the URL of the
 * row's persons (legacy door only). The URL carries the table's last instant as `date_to`, so it lists
 * the same cohorts later.
 */
export function retentionTable(query: InsightQuery, lines: RetentionLine[], ctx: PresentContext | null) {
  const period = query.interval[0].toUpperCase() + query.interval.slice(1);
  const anchor = { date_to: query.range.to.toISO() ?? '' };
  return lines.map((line, i) => {
    const selector: Record<string, string | number> = line.breakdownValue === null ? { selected_interval: i } : { breakdown_values: JSON.stringify([line.breakdownValue]) };
    const url = ctx ? personsUrl(ctx, 'retention', { ...anchor, ...selector }).url : undefined;
    const values = line.values.map((count, k) => ({ count, ...(ctx ? { people: [], people_url: url } : { label: `${period} ${k}` }) }));
    if (line.breakdownValue !== null) {
      return { values, label: line.breakdownValue, breakdown_values: [line.breakdownValue], breakdown_value: line.breakdownValue, ...(url ? { people_url: url } : {}) };
    }
    return { values, label: `${period} ${i}`, date: line.cohortStart?.toISO({ suppressMilliseconds: true }) ?? null, ...(url ? { people_url: url } : {}) };
  });
}

/** The persons of a cohort, each with the periods they were there in (`appearances`). */
export function retentionPersonsRows(people: Array<[string, SerializedActor]>, appearances: Map<string, number[]>) {
  return people.map(([id, person]) => ({ person, appearances: appearances.get(id) ?? [] }));
}

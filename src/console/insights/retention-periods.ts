/** One cohort row of a retention result, as `/query/` answers it. */
export interface RetentionRow {
  date: string;
  label: string;
  values: Array<{ count: number }>;
  breakdown_value?: unknown;
}

/**
 * Each row's values are padded to the table's width, so a later cohort's last cells lie after the range's end: its
 * position among the rows of its breakdown value says how many periods it has had.
 */
export function periodsSeen(results: RetentionRow[]): number[] {
  const counts = new Map<unknown, number>();
  const positions = results.map((row) => {
    const position = counts.get(row.breakdown_value) ?? 0;
    counts.set(row.breakdown_value, position + 1);
    return position;
  });
  return positions.map((position, i) => (counts.get(results[i].breakdown_value) ?? 0) - position);
}

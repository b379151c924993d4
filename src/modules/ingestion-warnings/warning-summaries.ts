/** One warning type's row as the summary query returns it. */
export interface WarningTypeRow {
  type: string;
  count: string | number;
  last_seen: Date;
  /** The most recent examples, newest first. */
  examples: Array<{ details: Record<string, unknown>; timestamp: string }>;
  /** Warnings per UTC day, oldest first. */
  daily: Array<{ day: string; count: number }>;
}

export interface WarningSummary {
  type: string;
  lastSeen: string;
  /** `[count, "YYYY-MM-DD"]` per day with warnings, as PostHog's sparkline. */
  sparkline: Array<[number, string]>;
  warnings: Array<{ type: string; timestamp: string; details: Record<string, unknown> }>;
  count: number;
}

/** PostHog's summary per warning type: how many, when last, per day, and the recent examples; newest type first. */
export function summarizeWarnings(rows: WarningTypeRow[]): WarningSummary[] {
  return rows
    .map((row) => ({
      type: row.type,
      lastSeen: new Date(row.last_seen).toISOString(),
      sparkline: row.daily.map(({ day, count }): [number, string] => [Number(count), day]),
      warnings: row.examples.map(({ details, timestamp }) => ({ type: row.type, timestamp: new Date(timestamp).toISOString(), details })),
      count: Number(row.count),
    }))
    .sort((a, b) => (a.lastSeen < b.lastSeen ? 1 : a.lastSeen > b.lastSeen ? -1 : a.type.localeCompare(b.type)));
}

import { RELATIVE_DATE } from '../../feature-flags/property-operators';

const UNIT_MS: Record<string, number> = { h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

/** `-30d` means thirty days before `now`; months and years are calendar months and years. */
function relativeDate(value: string, now: Date): number | null {
  const match = RELATIVE_DATE.exec(value.trim());
  if (!match) return null;
  const amount = Number(match[1]);
  const unit = match[2];
  if (unit in UNIT_MS) return now.getTime() - amount * UNIT_MS[unit];
  const date = new Date(now.getTime());
  if (unit === 'm') date.setUTCMonth(date.getUTCMonth() - amount);
  else date.setUTCFullYear(date.getUTCFullYear() - amount);
  return date.getTime();
}

/** A condition's date: relative (`-7d`) or any date string `Date.parse` understands. */
export function filterDate(value: unknown, now: Date): number | null {
  if (typeof value !== 'string') return null;
  const relative = relativeDate(value, now);
  if (relative !== null) return relative;
  const parsed = Date.parse(value);
  return Number.isNaN(parsed) ? null : parsed;
}

/** A property's date: an ISO string, or unix seconds as a number or numeric string. */
export function propertyDate(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value * 1000;
  if (typeof value !== 'string') return null;
  if (/^-?\d+(\.\d+)?$/.test(value.trim())) return Number(value) * 1000;
  const parsed = Date.parse(value);
  return Number.isNaN(parsed) ? null : parsed;
}

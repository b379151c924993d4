import { RELATIVE_DATE } from './property-operators';

const UNIT_MS: Record<string, number> = { h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
}

/**
 * Calendar months back, one at a time, each step keeping the day when the month has it and taking
 * the month's last day otherwise (relativedelta; PostHog's flags service and posthog-node): March 31
 * minus one month is February 28 or 29, never March 3.
 */
function monthsBefore(now: Date, months: number): number {
  const [year, month] = [now.getUTCFullYear(), now.getUTCMonth()];
  let day = now.getUTCDate();
  for (let step = 1; step <= months && day > 28; step++) day = Math.min(day, daysInMonth(year, month - step));
  const date = new Date(now.getTime());
  date.setUTCFullYear(year, month - months, day);
  return date.getTime();
}

/** Calendar years back; February 29 becomes February 28. */
function yearsBefore(now: Date, years: number): number {
  const leapDay = years > 0 && now.getUTCMonth() === 1 && now.getUTCDate() === 29;
  const date = new Date(now.getTime());
  date.setUTCFullYear(now.getUTCFullYear() - years, now.getUTCMonth(), leapDay ? 28 : now.getUTCDate());
  return date.getTime();
}

/** `-30d` means thirty days before `now`; months and years are calendar months and years. */
function relativeDate(value: string, now: Date): number | null {
  const match = RELATIVE_DATE.exec(value.trim());
  if (!match) return null;
  const amount = Number(match[1]);
  const unit = match[2];
  if (unit in UNIT_MS) return now.getTime() - amount * UNIT_MS[unit];
  return unit === 'm' ? monthsBefore(now, amount) : yearsBefore(now, amount);
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

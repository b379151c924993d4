/** Beyond this, a timestamp in the future is not believed (PostHog's 23 h rule). */
const FUTURE_TOLERANCE_MS = 23 * 60 * 60 * 1000;
/** Query `sent_at` / `_` values before 2021 are seconds or garbage, not Unix milliseconds. */
const EARLIEST_SENT_AT_MS = Date.UTC(2021, 0, 1);
/** 0000-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z (Date.UTC maps years below 100 to 19xx). */
const MIN_YEAR_MS = -62_167_219_200_000;
const MAX_YEAR_MS = 253_402_300_799_999;

export type TimestampWarning = 'event_timestamp_in_future' | 'ignored_invalid_timestamp';

export interface EventTimeInput {
  /** The event's `timestamp` field. */
  timestamp: unknown;
  /** The event's `offset` field (ms before sending). */
  offset: unknown;
  /** The request's sent_at, already parsed (ms). */
  sentAtMs: number | null;
  /** `properties.$ignore_sent_at`. */
  ignoreSentAt: boolean;
  /** When the request arrived (ms). */
  nowMs: number;
}

export interface EventTime {
  ms: number;
  warnings: TimestampWarning[];
}

/** Date, `T` or a space, time, then `Z`, `±HH`, `±HHMM`, `±HH:MM` or no zone at all. */
const ISO_LIKE = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(Z|([+-]\d{2}):?(\d{2})?)?$/i;

/** Parses an ISO 8601 / RFC 3339 / RFC 2822 date or a numeric epoch (seconds or ms); NaN when it is none. */
export function parseTimestamp(value: unknown): number {
  if (typeof value === 'number') return Number.isFinite(value) ? (value < 1e11 ? value * 1000 : value) : Number.NaN;
  if (typeof value !== 'string' || value.trim() === '') return Number.NaN;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return parseTimestamp(Number(text));
  const isoLike = ISO_LIKE.exec(text);
  if (!isoLike) return Date.parse(text);
  // A date-time without a zone is UTC, as in PostHog's parser (Date would read it as local time), and
  // an offset of hours alone (`+02`) is read as PostHog reads it, which Date cannot.
  const [, date, time, zone, zoneHours, zoneMinutes] = isoLike;
  const offset = zone === undefined ? 'Z' : zoneHours === undefined ? zone.toUpperCase() : `${zoneHours}:${zoneMinutes ?? '00'}`;
  return Date.parse(`${date}T${time}${offset}`);
}

/** `sent_at` of a request: the batch's ISO `sent_at`, else query `sent_at` / `_` in Unix milliseconds. */
export function parseSentAt(bodySentAt: unknown, querySentAt: unknown): number | null {
  if (typeof bodySentAt === 'string' && bodySentAt.length > 0) {
    const ms = parseTimestamp(bodySentAt);
    if (Number.isFinite(ms)) return ms;
  }
  const raw = typeof querySentAt === 'string' ? Number(querySentAt) : Number.NaN;
  return Number.isFinite(raw) && raw >= EARLIEST_SENT_AT_MS ? raw : null;
}

/**
 * Event time with clock-skew correction, as PostHog's plugin-server computes it (timestamps.ts): start from `now`; a
 * parseable timestamp is shifted by the client's skew (now − sent_at); `offset` overrides both;
 * more than 23 h ahead becomes now; outside years 0–9999 becomes the epoch.
 */
export function resolveEventTime(input: EventTimeInput): EventTime {
  const warnings: TimestampWarning[] = [];
  let ms = input.nowMs;
  const parsed = parseTimestamp(input.timestamp);
  if (Number.isFinite(parsed)) {
    ms = input.sentAtMs !== null && !input.ignoreSentAt ? input.nowMs + (parsed - input.sentAtMs) : parsed;
  } else if (input.timestamp !== undefined && input.timestamp !== null) {
    warnings.push('ignored_invalid_timestamp');
  }
  if (typeof input.offset === 'number' && Number.isFinite(input.offset)) ms = input.nowMs - input.offset;
  if (ms - input.nowMs > FUTURE_TOLERANCE_MS) {
    warnings.push('event_timestamp_in_future');
    ms = input.nowMs;
  }
  if (!Number.isFinite(ms) || ms < MIN_YEAR_MS || ms > MAX_YEAR_MS) {
    warnings.push('ignored_invalid_timestamp');
    ms = 0;
  }
  return { ms, warnings };
}

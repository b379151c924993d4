import { apiErrorOf } from '../../support/api-errors';
import { nextPageUrl, parseOrderBy } from '../../../src/modules/events/event-list-order';
import { parseActionId, parseEventListFilters, parseIncludePerson } from '../../../src/modules/events/event-requests';

const EVENT_ID = '018f0000-0000-7000-8000-000000000001';


const invalid = (detail: string, attr: string) => ({ status: 400, type: 'validation_error', code: 'invalid_input', detail, attr });

describe('parseOrderBy', () => {
  it('defaults to newest first when absent, blank or an empty list', () => {
    for (const text of [undefined, '', '  ', '[]']) expect(parseOrderBy(text)).toBe('desc');
  });

  it('reads ["-timestamp"] as newest first and ["timestamp"] as oldest first; the first entry decides', () => {
    expect(parseOrderBy('["-timestamp"]')).toBe('desc');
    expect(parseOrderBy('["timestamp"]')).toBe('asc');
    expect(parseOrderBy('["timestamp", "-timestamp"]')).toBe('asc');
  });

  it('refuses invalid JSON and anything but a list with a 400 naming orderBy', () => {
    const notAList = invalid('orderBy must be a JSON list such as ["-timestamp"] or ["timestamp"].', 'orderBy');
    for (const text of ['[timestamp', 'timestamp', '"timestamp"', '{"timestamp":1}', '1', 'null']) expect(apiErrorOf(() => parseOrderBy(text))).toEqual(notAList);
  });

  it('refuses unknown fields, other types and inherited object keys', () => {
    expect(apiErrorOf(() => parseOrderBy('["-event"]'))).toEqual(invalid('Events cannot be ordered by "-event": only "timestamp" and "-timestamp" are supported.', 'orderBy'));
    expect(apiErrorOf(() => parseOrderBy('["timestamp", 1]'))).toEqual(invalid('Events cannot be ordered by 1: only "timestamp" and "-timestamp" are supported.', 'orderBy'));
    expect(apiErrorOf(() => parseOrderBy('["constructor"]')).detail).toContain('"constructor"');
    expect(apiErrorOf(() => parseOrderBy('[null]')).detail).toContain('by null');
  });
});

describe('nextPageUrl', () => {
  const last = { timestamp: '2026-01-02T00:00:00.5+00:00', id: EVENT_ID };

  it('moves before/before_id newest first, keeping every other parameter and dropping offset', () => {
    const url = new URL('http://h/api/projects/1/events/?event=tick&limit=10&offset=20&before=x&before_id=y');
    const next = new URL(nextPageUrl(url, 'desc', last));
    expect(Object.fromEntries(next.searchParams)).toEqual({ event: 'tick', limit: '10', before: last.timestamp, before_id: EVENT_ID });
  });

  it('moves after/after_id oldest first and keeps an upper bound and orderBy', () => {
    const url = new URL('http://h/api/projects/1/events/?orderBy=%5B%22timestamp%22%5D&before=2026-02-01&after=old&after=older');
    const next = new URL(nextPageUrl(url, 'asc', last));
    expect(Object.fromEntries(next.searchParams)).toEqual({ orderBy: '["timestamp"]', before: '2026-02-01', after: last.timestamp, after_id: EVENT_ID });
    expect(next.searchParams.getAll('after')).toEqual([last.timestamp]);
  });
});

describe('parseEventListFilters: order and cursors', () => {
  const now = new Date('2026-03-01T00:00:00Z');

  it('carries the order and an after_id cursor for oldest-first pages', () => {
    const filters = parseEventListFilters({ orderBy: '["timestamp"]', after: '2026-01-01T00:00:00+00:00', after_id: EVENT_ID.toUpperCase() }, now);
    expect(filters).toMatchObject({ order: 'asc', after: '2026-01-01T00:00:00.000000Z', afterId: EVENT_ID, beforeId: undefined });
    expect(parseEventListFilters({}, now).order).toBe('desc');
  });

  it('ties each cursor to its bound and to the order it pages', () => {
    expect(apiErrorOf(() => parseEventListFilters({ orderBy: '["timestamp"]', after_id: EVENT_ID }, now))).toEqual(invalid('after_id needs after and must be an event id.', 'after_id'));
    expect(apiErrorOf(() => parseEventListFilters({ orderBy: '["timestamp"]', after: '2026-01-01', after_id: 'x' }, now)).attr).toBe('after_id');
    expect(apiErrorOf(() => parseEventListFilters({ after: '2026-01-01', after_id: EVENT_ID }, now))).toEqual(
      invalid('after_id pages events in the order ["timestamp"]; pass that orderBy too.', 'after_id'),
    );
    expect(apiErrorOf(() => parseEventListFilters({ orderBy: '["timestamp"]', before: '2026-01-01', before_id: EVENT_ID }, now))).toEqual(
      invalid('before_id pages events in the order ["-timestamp"]; pass that orderBy too.', 'before_id'),
    );
  });

  it('checks orderBy before the cursors that depend on it', () => {
    expect(apiErrorOf(() => parseEventListFilters({ orderBy: 'nope', after_id: 'x' }, now)).attr).toBe('orderBy');
  });
});

describe('parseIncludePerson', () => {
  it('includes the person when absent or given without a value', () => {
    expect(parseIncludePerson(undefined)).toBe(true);
    expect(parseIncludePerson('')).toBe(true);
  });

  it("reads DRF's boolean spellings case-insensitively; the last repeated value counts", () => {
    for (const text of ['true', 'True', '1', 'yes', 'on', 't']) expect(parseIncludePerson(text)).toBe(true);
    for (const text of ['false', 'FALSE', '0', 'no', 'off', 'f']) expect(parseIncludePerson(text)).toBe(false);
    expect(parseIncludePerson(['true', 'false'])).toBe(false);
  });

  it('refuses anything else with a 400 naming include_person', () => {
    for (const text of ['maybe', '2', 'truee', '{}']) expect(apiErrorOf(() => parseIncludePerson(text))).toEqual(invalid('Must be a valid boolean.', 'include_person'));
  });
});

describe('parseActionId', () => {
  it('reads integers (absent stays absent)', () => {
    expect(parseActionId(undefined)).toBeUndefined();
    expect(parseActionId('7')).toBe(7);
    expect(parseActionId(['x', '-3'])).toBe(-3);
    expect(parseActionId('9'.repeat(30))).toBeGreaterThan(0);
  });

  it('refuses non-integers with a 400 naming action_id', () => {
    for (const text of ['', 'abc', '1.5', '1e3', '0x10', '- 1']) expect(apiErrorOf(() => parseActionId(text))).toEqual(invalid('A valid integer is required.', 'action_id'));
  });
});

import { apiErrorOf } from '../../support/api-errors';
import { bulkDeleteSummary, parseBulkDeleteRequest } from '../../../src/modules/persons/person-bulk-delete';

const A = '018f0000-0000-7000-8000-00000000000a';
const B = '018f0000-0000-7000-8000-00000000000b';


const invalid = (detail: string, attr: string | null = null) => ({ status: 400, type: 'validation_error', code: 'invalid_input', detail, attr });
const many = (n: number, make: (i: number) => string) => Array.from({ length: n }, (_, i) => make(i));
const uuid = (i: number) => `018f0000-0000-7000-8000-${String(i).padStart(12, '0')}`;

describe('parseBulkDeleteRequest', () => {
  it('selects by uuid (lowercased, duplicates dropped) with every flag off by default', () => {
    expect(parseBulkDeleteRequest({ ids: [A, A.toUpperCase(), B] })).toEqual({
      selector: { uuids: [A, B] },
      deleteEvents: false,
      deleteRecordings: false,
      keepPerson: false,
    });
  });

  it('cuts a distinct id longer than 200 characters as ingestion cut it when storing it', () => {
    const long = 'd'.repeat(150) + '\u{1F600}'.repeat(100);
    expect(parseBulkDeleteRequest({ distinct_ids: [long] }).selector).toEqual({ distinctIds: [Array.from(long).slice(0, 200).join('')] });
  });

  it('selects by distinct id, cleaned as ingestion stores them, and reads the flags', () => {
    expect(parseBulkDeleteRequest({ distinct_ids: ['a', 'a', 'b\u0000'], delete_events: true, delete_recordings: true, keep_person: true })).toEqual({
      selector: { distinctIds: ['a', 'b\ufffd'] },
      deleteEvents: true,
      deleteRecordings: true,
      keepPerson: true,
    });
  });

  it("treats an empty or null list as absent, as PostHog's truthiness test does", () => {
    expect(parseBulkDeleteRequest({ ids: [], distinct_ids: ['x'] }).selector).toEqual({ distinctIds: ['x'] });
    expect(parseBulkDeleteRequest({ ids: [A], distinct_ids: null }).selector).toEqual({ uuids: [A] });
  });

  it("refuses both lists and neither list with PostHog's messages", () => {
    expect(apiErrorOf(() => parseBulkDeleteRequest({ ids: [A], distinct_ids: ['x'] }))).toEqual(invalid('You must provide either distinct_ids or ids, not both'));
    for (const body of [{}, { ids: [] }, { distinct_ids: [] }, { ids: null, delete_events: true }]) {
      expect(apiErrorOf(() => parseBulkDeleteRequest(body))).toEqual(invalid('You need to specify either distinct_ids or ids'));
    }
  });

  it('allows 1000 of each and refuses 1001', () => {
    expect(parseBulkDeleteRequest({ ids: many(1000, uuid) }).selector).toEqual({ uuids: many(1000, uuid) });
    expect(parseBulkDeleteRequest({ distinct_ids: many(1000, String) }).selector).toEqual({ distinctIds: many(1000, String) });
    expect(apiErrorOf(() => parseBulkDeleteRequest({ ids: many(1001, uuid) }))).toEqual(invalid('You can only pass 1000 ids in one call'));
    expect(apiErrorOf(() => parseBulkDeleteRequest({ distinct_ids: many(1001, String) }))).toEqual(invalid('You can only pass 1000 distinct_ids in one call'));
  });

  it('names the first id that is not a uuid and the first distinct id that is not a string', () => {
    expect(apiErrorOf(() => parseBulkDeleteRequest({ ids: [A, 'nope', 5] }))).toEqual(invalid('Must be a valid UUID.', 'ids__1'));
    expect(apiErrorOf(() => parseBulkDeleteRequest({ ids: [null] }))).toEqual(invalid('Must be a valid UUID.', 'ids__0'));
    expect(apiErrorOf(() => parseBulkDeleteRequest({ distinct_ids: ['a', 'b', 3] }))).toEqual(invalid('Not a valid string.', 'distinct_ids__2'));
    expect(apiErrorOf(() => parseBulkDeleteRequest({ distinct_ids: [{ id: 'a' }] }))).toEqual(invalid('Not a valid string.', 'distinct_ids__0'));
  });

  it("refuses a body that is not an object with DRF's message", () => {
    expect(apiErrorOf(() => parseBulkDeleteRequest([A]))).toEqual(invalid('Invalid data. Expected a dictionary, but got list.'));
    expect(apiErrorOf(() => parseBulkDeleteRequest('x'))).toEqual(invalid('Invalid data. Expected a dictionary, but got str.'));
    expect(apiErrorOf(() => parseBulkDeleteRequest(3))).toEqual(invalid('Invalid data. Expected a dictionary, but got int.'));
  });
});

describe('bulkDeleteSummary', () => {
  const request = (flags: { deleteEvents?: boolean; deleteRecordings?: boolean; keepPerson?: boolean }) => ({
    selector: { uuids: [A] },
    deleteEvents: false,
    deleteRecordings: false,
    keepPerson: false,
    ...flags,
  });

  it("reports PostHog's fields; event and recording flags only when persons were found", () => {
    expect(bulkDeleteSummary(request({ deleteEvents: true, deleteRecordings: true }), 2, 2)).toEqual({
      persons_found: 2,
      persons_deleted: 2,
      events_queued_for_deletion: true,
      recordings_queued_for_deletion: true,
      deletion_errors: [],
    });
    expect(bulkDeleteSummary(request({ deleteEvents: true, deleteRecordings: true }), 0, 0)).toMatchObject({
      events_queued_for_deletion: false,
      recordings_queued_for_deletion: false,
    });
    expect(bulkDeleteSummary(request({}), 1, 1)).toMatchObject({ events_queued_for_deletion: false, recordings_queued_for_deletion: false });
  });
});

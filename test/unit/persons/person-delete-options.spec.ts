import { parsePersonDeleteOptions } from '../../../src/modules/persons/person-requests';

describe(parsePersonDeleteOptions.name, () => {
  it.each([
    [{}, false, false],
    [{ delete_events: 'true' }, true, false],
    [{ delete_events: 'TRUE', keep_person: '1' }, true, true],
    [{ keep_person: 'true' }, false, true],
    [{ delete_events: 'false', keep_person: '0' }, false, false],
    [{ delete_events: '', keep_person: 'yes' }, false, false],
    [{ delete_events: ['true', 'false'] }, false, false],
    [{ delete_events: ['false', 'true'] }, true, false],
  ])('%j → delete events %s, keep person %s', (query, deleteEvents, keepPerson) => {
    expect(parsePersonDeleteOptions(query)).toEqual({ deleteEvents, keepPerson });
  });
});

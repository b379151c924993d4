import { ApiError } from '../../../src/common/errors/api-error';
import { parseSteps } from '../../../src/modules/actions/action-steps';

function detailOf(raw: unknown): string {
  try {
    parseSteps(raw);
  } catch (error) {
    if (error instanceof ApiError) return error.detail;
    throw error;
  }
  return 'no error';
}

describe('parseSteps', () => {
  it('fills every field of a step, null when unset', () => {
    expect(parseSteps([{ event: '$pageview', url: '/pricing' }])).toEqual([{
      event: '$pageview', properties: null, selector: null, tag_name: null, text: null, text_matching: null, href: null, href_matching: null, url: '/pricing', url_matching: null,
    }]);
  });

  it.each([
    [{}, 'steps must be a list of steps.'],
    [[1], 'steps[0] must be an object: {"event": "$pageview", "url": "/pricing", …}.'],
    [[{ url: 1 }], 'steps[0].url must be text or null.'],
    [[{ url: 'a', url_matching: 'prefix' }], 'steps[0].url_matching must be one of contains, regex, exact (got "prefix").'],
    [[{ text: '(', text_matching: 'regex' }], 'steps[0].text is not a valid regular expression (RE2 syntax).'],
    [[{ event: 'a', properties: {} }], 'steps[0].properties must be a list of property filters.'],
  ])('refuses %j', (raw, detail) => {
    expect(detailOf(raw)).toBe(detail);
  });

  it('refuses more than 50 steps', () => {
    expect(detailOf(Array.from({ length: 51 }, () => ({ event: 'a' })))).toBe('An action holds at most 50 steps (got 51).');
  });
});

import { clientErrorReply, frameworkError, MAX_PARAM_LENGTH } from '../../src/common/http/framework-errors';
import { cleanQuery } from '../../src/common/http/query-cleaning';

const coded = (code: string) => Object.assign(new Error(code), { code });

describe(frameworkError.name, () => {
  it.each([
    ['FST_ERR_BAD_URL', 400, 'invalid_url', 'The URL path is not valid percent-encoded UTF-8.'],
    ['FST_ERR_MAX_PARAM_LENGTH', 414, 'uri_too_long', `A path segment is longer than ${MAX_PARAM_LENGTH} characters.`],
    ['FST_ERR_ASYNC_CONSTRAINT', 400, 'invalid_request', 'The request could not be routed.'],
  ])('answers %s as %i %s in the PostHog envelope', (code, status, apiCode, detail) => {
    const error = frameworkError(coded(code));
    expect([error.status, error.toBody()]).toEqual([status, { type: 'invalid_request', code: apiCode, detail, attr: null }]);
  });
});

describe(clientErrorReply.name, () => {
  it.each([
    ['ERR_HTTP_REQUEST_TIMEOUT', 408, 'request_timeout'],
    ['HPE_HEADER_OVERFLOW', 431, 'request_header_fields_too_large'],
    ['HPE_INVALID_METHOD', 400, 'bad_request'],
  ])('answers %s as %i %s', (code, status, apiCode) => {
    const error = clientErrorReply(coded(code));
    expect([error.status, error.type, error.code]).toEqual([status, 'invalid_request', apiCode]);
  });
});

describe(cleanQuery.name, () => {
  it('cleans NUL and lone surrogates in values and lists, leaving the rest as it is', () => {
    const query: Record<string, unknown> = Object.assign(Object.create(null), { search: 'a\u0000b', ids: ['\ud800', 'ok'], v: '3', emoji: '\u{1F600}' });
    cleanQuery(query);
    expect({ ...query }).toEqual({ search: 'a\ufffdb', ids: ['\ufffd', 'ok'], v: '3', emoji: '\u{1F600}' });
  });
});

import { checkMetricsToken, tokenDigest } from '../../../src/modules/auth/metrics-token';
import { ApiError } from '../../../src/common/errors/api-error';

const TOKEN = 'scrape-token-0123456789';
const expected = tokenDigest(TOKEN);

function refusal(digest: Buffer | null, authorization: string | undefined): ApiError {
  try {
    checkMetricsToken(digest, authorization);
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }
  throw new Error('expected a refusal');
}

describe(checkMetricsToken.name, () => {
  it('lets the configured token through as a Bearer header, the keyword in any case', () => {
    expect(() => checkMetricsToken(expected, `Bearer ${TOKEN}`)).not.toThrow();
    expect(() => checkMetricsToken(expected, `bearer  ${TOKEN} `)).not.toThrow();
  });

  it('is off without a configured token, whatever is sent, and says how to turn it on', () => {
    for (const header of [undefined, `Bearer ${TOKEN}`]) {
      const error = refusal(null, header);
      expect([error.status, error.toBody()]).toEqual([403, {
        type: 'authentication_error',
        code: 'permission_denied',
        detail: 'Metrics are off. Set METRICS_TOKEN (16 to 512 visible ASCII characters) and send it as "Authorization: Bearer <METRICS_TOKEN>" (Prometheus: the scrape job\'s authorization credentials).',
        attr: null,
      }]);
    }
  });

  it.each([undefined, '', 'Bearer', 'Basic c2NyYXBlOnRva2Vu', TOKEN])('answers 401 not_authenticated without a Bearer token (%p)', (header) => {
    const error = refusal(expected, header);
    expect([error.status, error.code, error.headers]).toEqual([401, 'not_authenticated', { 'www-authenticate': 'Bearer' }]);
  });

  it.each([`Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(0, -1)}`, `Bearer ${TOKEN.toUpperCase()}`, 'Bearer x'])('answers 401 authentication_failed to another token (%s)', (header) => {
    const error = refusal(expected, header);
    expect([error.status, error.toBody(), error.headers]).toEqual([401, {
      type: 'authentication_error',
      code: 'authentication_failed',
      detail: 'The bearer token is not the METRICS_TOKEN this service was started with.',
      attr: null,
    }, { 'www-authenticate': 'Bearer' }]);
  });
});

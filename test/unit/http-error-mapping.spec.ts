import {
  BadRequestException,
  ConflictException,
  ForbiddenException,
  HttpException,
  InternalServerErrorException,
  NotFoundException,
  PayloadTooLargeException,
  UnauthorizedException,
} from '@nestjs/common';
import { ApiError } from '../../src/common/errors/api-error';
import { payloadTooLarge, toApiError } from '../../src/common/errors/http-error-mapping';

const LIMIT = 1024;

/** Status and body together, so one toEqual checks the whole response. */
function response(error: ApiError) {
  return { status: error.status, body: error.toBody() };
}

const SERVER_ERROR = {
  status: 500,
  body: { type: 'server_error', code: 'error', detail: 'A server error occurred.', attr: null },
};

function fastifyError(code: string | undefined, statusCode: number, message = 'fastify says no'): Error {
  return Object.assign(new Error(message), { code, statusCode });
}

describe(toApiError.name, () => {
  describe('ApiError', () => {
    it('passes an ApiError through unchanged', () => {
      const original = new ApiError(409, 'invalid_request', 'conflict', 'Already exists.', 'name', { 'x-a': '1' });
      expect(toApiError(original, LIMIT)).toBe(original);
    });
  });

  describe('Nest HttpException', () => {
    it('maps 404 to not_found', () => {
      expect(response(toApiError(new NotFoundException('Cannot GET /nope'), LIMIT))).toEqual({
        status: 404,
        body: { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null },
      });
    });

    it('maps 401 to not_authenticated', () => {
      expect(response(toApiError(new UnauthorizedException(), LIMIT))).toEqual({
        status: 401,
        body: {
          type: 'authentication_error',
          code: 'not_authenticated',
          detail: 'Authentication credentials were not provided.',
          attr: null,
        },
      });
    });

    it('maps 403 to permission_denied', () => {
      expect(response(toApiError(new ForbiddenException('custom text is dropped'), LIMIT))).toEqual({
        status: 403,
        body: {
          type: 'authentication_error',
          code: 'permission_denied',
          detail: 'You do not have permission to perform this action.',
          attr: null,
        },
      });
    });

    it('maps 413 to payload_too_large with the configured limit', () => {
      expect(response(toApiError(new PayloadTooLargeException(), 2048))).toEqual({
        status: 413,
        body: {
          type: 'invalid_request',
          code: 'payload_too_large',
          detail: 'Request body is larger than the limit of 2048 bytes.',
          attr: null,
        },
      });
    });

    it('maps 400 to a validation error carrying the exception message', () => {
      expect(response(toApiError(new BadRequestException('Bad thing'), LIMIT))).toEqual({
        status: 400,
        body: { type: 'validation_error', code: 'invalid_input', detail: 'Bad thing', attr: null },
      });
    });

    it('maps another 4xx to invalid_request with its own status and message', () => {
      expect(response(toApiError(new ConflictException('Taken'), LIMIT))).toEqual({
        status: 409,
        body: { type: 'invalid_request', code: 'error', detail: 'Taken', attr: null },
      });
    });

    it('maps a plain HttpException with a 4xx status the same way', () => {
      expect(response(toApiError(new HttpException('Gone away', 410), LIMIT))).toEqual({
        status: 410,
        body: { type: 'invalid_request', code: 'error', detail: 'Gone away', attr: null },
      });
    });

    it('hides the message of a 5xx', () => {
      expect(response(toApiError(new InternalServerErrorException('db password is hunter2'), LIMIT))).toEqual(SERVER_ERROR);
    });

    it('hides the message of a 503 HttpException', () => {
      expect(response(toApiError(new HttpException('upstream detail', 503), LIMIT))).toEqual(SERVER_ERROR);
    });
  });

  describe('Fastify errors', () => {
    it('maps FST_ERR_CTP_BODY_TOO_LARGE to 413 with the limit', () => {
      expect(response(toApiError(fastifyError('FST_ERR_CTP_BODY_TOO_LARGE', 413), 20_971_520))).toEqual({
        status: 413,
        body: {
          type: 'invalid_request',
          code: 'payload_too_large',
          detail: 'Request body is larger than the limit of 20971520 bytes.',
          attr: null,
        },
      });
    });

    it('maps FST_ERR_CTP_BODY_TOO_LARGE by its code alone, whatever the status', () => {
      expect(toApiError({ code: 'FST_ERR_CTP_BODY_TOO_LARGE' }, LIMIT).status).toBe(413);
    });

    it('maps FST_ERR_CTP_INVALID_CONTENT_LENGTH to 413', () => {
      expect(response(toApiError(fastifyError('FST_ERR_CTP_INVALID_CONTENT_LENGTH', 400), LIMIT))).toEqual(response(payloadTooLarge(LIMIT)));
    });

    it('maps an empty JSON body to a parse error', () => {
      expect(response(toApiError(fastifyError('FST_ERR_CTP_EMPTY_JSON_BODY', 400), LIMIT))).toEqual({
        status: 400,
        body: {
          type: 'invalid_request',
          code: 'parse_error',
          detail: 'JSON parse error - Expecting value: line 1 column 1 (char 0)',
          attr: null,
        },
      });
    });

    it('maps an unsupported media type to 415', () => {
      expect(response(toApiError(fastifyError('FST_ERR_CTP_INVALID_MEDIA_TYPE', 415), LIMIT))).toEqual({
        status: 415,
        body: {
          type: 'invalid_request',
          code: 'unsupported_media_type',
          detail: 'Unsupported media type in request.',
          attr: null,
        },
      });
    });

    it('maps a 400 SyntaxError to a parse error carrying its message', () => {
      const error = Object.assign(new SyntaxError('Unexpected token } in JSON at position 9'), { statusCode: 400 });
      expect(response(toApiError(error, LIMIT))).toEqual({
        status: 400,
        body: {
          type: 'invalid_request',
          code: 'parse_error',
          detail: 'JSON parse error - Unexpected token } in JSON at position 9',
          attr: null,
        },
      });
    });

    it('does not treat a SyntaxError without status 400 as a parse error', () => {
      expect(response(toApiError(new SyntaxError('in our own code'), LIMIT))).toEqual(SERVER_ERROR);
    });

    it('does not treat a non-SyntaxError with status 400 as a parse error', () => {
      expect(response(toApiError(fastifyError('FST_SOMETHING_ELSE', 400), LIMIT))).toEqual(SERVER_ERROR);
    });

    it('maps any error with statusCode 413 to payload_too_large', () => {
      expect(response(toApiError(fastifyError(undefined, 413), 4096))).toEqual(response(payloadTooLarge(4096)));
    });
  });

  describe('anything else', () => {
    it('maps an unknown Error to a 500 that hides its message', () => {
      expect(response(toApiError(new Error('secret internals'), LIMIT))).toEqual(SERVER_ERROR);
    });

    it('maps a TypeError to a 500', () => {
      expect(response(toApiError(new TypeError("Cannot read properties of undefined (reading 'id')"), LIMIT))).toEqual(SERVER_ERROR);
    });

    it.each([
      ['null', null],
      ['undefined', undefined],
      ['a string', 'boom'],
      ['a number', 42],
      ['a plain object', { message: 'x' }],
    ])('maps a thrown %s to a 500', (_label, thrown) => {
      expect(response(toApiError(thrown, LIMIT))).toEqual(SERVER_ERROR);
    });
  });
});

describe(payloadTooLarge.name, () => {
  it('builds a 413 naming the limit in bytes', () => {
    expect(response(payloadTooLarge(1))).toEqual({
      status: 413,
      body: { type: 'invalid_request', code: 'payload_too_large', detail: 'Request body is larger than the limit of 1 bytes.', attr: null },
    });
  });
});

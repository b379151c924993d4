import { Logger } from '@nestjs/common';
import { Writable } from 'node:stream';
import { createRootLogger, PinoNestLogger } from '../../../src/common/logging/logger';

/** Log lines as written, parsed. */
function capture(): { lines: Array<Record<string, any>>; sut: PinoNestLogger } {
  const lines: Array<Record<string, any>> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()));
      done();
    },
  });
  return { lines, sut: new PinoNestLogger(createRootLogger('debug', stream)) };
}

describe(PinoNestLogger.name, () => {
  afterEach(() => Logger.overrideLogger(false));

  it('writes a per-class Logger call in pino style, (fields, message), with the message as msg', () => {
    const { lines, sut } = capture();
    Logger.overrideLogger(sut);
    new Logger('IngestionProducer').warn({ err: new Error('connection refused'), partition: 3 }, 'enqueue failed');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'warn', msg: 'enqueue failed', context: 'IngestionProducer', partition: 3 });
    expect(lines[0].err.message).toBe('connection refused');
    expect(lines[0].stack).toBeUndefined();
  });

  it("keeps Nest's own (message, stack, context) form", () => {
    const { lines, sut } = capture();
    sut.error('request failed', 'Error: boom\n    at x', 'ExceptionsHandler');
    expect(lines[0]).toMatchObject({ level: 'error', msg: 'request failed', stack: 'Error: boom\n    at x', context: 'ExceptionsHandler' });
  });

  it('takes the message of an Error logged alone', () => {
    const { lines, sut } = capture();
    sut.warn(new Error('gone'), 'Worker');
    expect(lines[0]).toMatchObject({ level: 'warn', msg: 'gone', context: 'Worker' });
  });

  it('redacts keys in fields', () => {
    const { lines, sut } = capture();
    sut.log({ api_key: 'phc_secret', event: 'x' }, 'dropped', 'Capture');
    expect(lines[0]).toMatchObject({ api_key: '[redacted]', msg: 'dropped' });
  });

  // Listed here, not read from the logger, so that dropping any path from the logger fails its own case.
  it.each([
    ['req.headers.authorization', { req: { headers: { authorization: 'Bearer phx_SECRET' } } }],
    ['req.headers.cookie', { req: { headers: { cookie: 'sessionid=SECRET' } } }],
    ['headers.authorization', { headers: { authorization: 'Bearer phx_SECRET' } }],
    ['authorization', { authorization: 'Bearer phx_SECRET' }],
    ['api_key', { api_key: 'phc_SECRET' }],
    ['token', { token: 'phc_SECRET' }],
    ['personal_api_key', { personal_api_key: 'phx_SECRET' }],
    ['*.api_key', { body: { api_key: 'phc_SECRET' } }],
    ['*.token', { body: { token: 'phc_SECRET' } }],
    ['*.personal_api_key', { query: { personal_api_key: 'phx_SECRET' } }],
    ['*.password', { body: { password: 'SECRET' } }],
  ])('redacts %s', (path, fields) => {
    const { lines, sut } = capture();
    sut.log({ ...fields, event: 'kept' }, 'a line', 'Redaction');
    expect(JSON.stringify(lines[0])).not.toContain('SECRET');
    const value = path.replace('*', Object.keys(fields)[0]).split('.').reduce((node: any, key) => node?.[key], lines[0]);
    expect({ path, value, event: lines[0].event }).toEqual({ path, value: '[redacted]', event: 'kept' });
  });
});

describe('serializeError', () => {
  it('drops the SQL, its parameters and the quoted key values of a query error, keeping message, code and stack', async () => {
    const { serializeError } = await import('../../../src/common/logging/logger');
    const error = Object.assign(new Error('duplicate key value violates unique constraint "person_distinct_id_uq"'), {
      query: 'INSERT INTO person_distinct_id …',
      parameters: [['ada@example.com', 'bob@example.com']],
      detail: 'Key (distinct_id)=(ada@example.com) already exists.',
      code: '23505',
    });
    const serialized = serializeError(error) as Record<string, unknown>;
    expect(serialized).toMatchObject({ message: error.message, code: '23505', type: 'Error' });
    expect(serialized.stack).toEqual(expect.stringContaining('duplicate key'));
    expect(JSON.stringify(serialized)).not.toContain('example.com');
  });
});

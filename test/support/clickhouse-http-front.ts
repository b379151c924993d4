import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync, gzipSync } from 'node:zlib';
import { acquireChdb, ChdbHandle, ChdbModule, ChdbSession } from '../../src/modules/analytics/engine/chdb-handle';
import { clickhouseCode } from '../../src/modules/analytics/engine/clickhouse-error';
import { FrontRequest, parseFrontRequest, settingsStatement } from './clickhouse-http-request';
import { testDataDir } from './test-env';

export interface FrontOptions {
  chdb: ChdbModule;
  /** The process's chdb data directory: the one every engine of the test process uses. */
  path: string;
  /** When set, requests must authenticate as this user (Basic, or X-ClickHouse-User/Key). */
  credentials?: { user: string; password: string };
}

interface Answer {
  body: Uint8Array;
  readRows: number;
  readBytes: number;
  elapsedNs: number;
}

/** Only the ClickHouse exceptions the front makes itself; the engine's own carry their code already. */
const AUTHENTICATION_FAILED = 516;
const UNKNOWN_EXCEPTION = 1002;

/**
 * A ClickHouse server for tests, as far as @clickhouse/client sees one: `/ping`, statements by POST or
 * GET with bound `param_` values and settings as URL arguments, the FORMAT the client appends, gzip
 * both ways, and failures as HTTP errors with `Code: N. DB::Exception: …` and X-ClickHouse-Exception-Code.
 * Behind it is the process's own embedded engine (chdb admits one data directory per process, so the
 * front shares the path of every other engine in the test), one fresh session per request so that each
 * request's database and settings stay its own, as on a server.
 */
export class ClickHouseHttpFront {
  private readonly running = new Set<Promise<unknown>>();

  private constructor(
    private readonly handle: ChdbHandle,
    private readonly server: Server,
    private readonly options: FrontOptions,
  ) {}

  static async start(options: FrontOptions): Promise<ClickHouseHttpFront> {
    const handle = await acquireChdb(options.path, options.chdb);
    const server = createServer();
    const front = new ClickHouseHttpFront(handle, server, options);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => front.track(front.serve(req, res)));
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    return front;
  }

  /** `http://127.0.0.1:<port>`, with the credentials in it when given. */
  url(credentials?: { user: string; password: string }): string {
    const { port } = this.server.address() as AddressInfo;
    const auth = credentials ? `${encodeURIComponent(credentials.user)}:${encodeURIComponent(credentials.password)}@` : '';
    return `http://${auth}127.0.0.1:${port}`;
  }

  async close(): Promise<void> {
    const closed = new Promise((done) => this.server.close(done));
    this.server.closeAllConnections();
    await closed;
    await Promise.allSettled([...this.running]);
    await this.handle.release();
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://front');
    const queryId = url.searchParams.get('query_id') ?? randomUUID();
    if (url.pathname === '/ping') return void res.writeHead(200, { 'Content-Type': 'text/plain; charset=UTF-8' }).end('Ok.\n');
    if (!this.authorized(req, url.searchParams)) {
      return fail(res, queryId, 401, AUTHENTICATION_FAILED, `Code: ${AUTHENTICATION_FAILED}. DB::Exception: Authentication failed: password is incorrect, or there is no user with such name. (AUTHENTICATION_FAILED)`);
    }
    try {
      const request = parseFrontRequest(url.searchParams, await readBody(req), req.headers['accept-encoding']);
      const answer = await this.run(request);
      answered(res, queryId, request, answer);
    } catch (error) {
      const code = clickhouseCode(error) ?? UNKNOWN_EXCEPTION;
      const message = error instanceof Error ? error.message : String(error);
      fail(res, queryId, 500, code, /^Code: \d+\./.test(message) ? message : `Code: ${code}. DB::Exception: ${message} (UNKNOWN_EXCEPTION)`);
    }
  }

  private async run(request: FrontRequest): Promise<Answer> {
    const session: ChdbSession = this.handle.openSession();
    try {
      if (request.database !== null) {
        if (!/^\w+$/.test(request.database)) throw new Error(`not a database name: ${request.database}`);
        await session.queryAsync(`USE \`${request.database}\``);
      }
      const set = settingsStatement(request.settings);
      if (set) await session.queryAsync(set);
      const format = { format: request.format };
      // Bound statements run alone in the process, as the engines' do (see ChdbHandle.exclusive).
      const result =
        Object.keys(request.params).length === 0
          ? await session.queryAsync(request.sql, format)
          : await this.handle.exclusive(() => session.queryBindAsync(request.sql, request.params, format));
      return { body: result.bytes(), readRows: result.rowsRead, readBytes: result.bytesRead, elapsedNs: Math.round(result.elapsed * 1e9) };
    } finally {
      session.close();
    }
  }

  private authorized(req: IncomingMessage, search: URLSearchParams): boolean {
    const expected = this.options.credentials;
    if (!expected) return true;
    const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '');
    const [user, password] = basic
      ? Buffer.from(basic[1], 'base64').toString().split(/:(.*)/s)
      : [req.headers['x-clickhouse-user'] ?? search.get('user'), req.headers['x-clickhouse-key'] ?? search.get('password')];
    return user === expected.user && password === expected.password;
  }

  private track(serving: Promise<void>): void {
    this.running.add(serving);
    const forget = () => this.running.delete(serving);
    serving.then(forget, forget);
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  return (req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8');
}

function answered(res: ServerResponse, queryId: string, request: FrontRequest, answer: Answer): void {
  const summary = { read_rows: answer.readRows, read_bytes: answer.readBytes, written_rows: request.insertedRows, written_bytes: 0, total_rows_to_read: answer.readRows, result_rows: 0, result_bytes: answer.body.length, elapsed_ns: answer.elapsedNs };
  const headers: Record<string, string> = {
    'Content-Type': 'text/plain; charset=UTF-8',
    'X-ClickHouse-Query-Id': queryId,
    'X-ClickHouse-Format': request.format,
    'X-ClickHouse-Summary': JSON.stringify(Object.fromEntries(Object.entries(summary).map(([key, value]) => [key, String(value)]))),
  };
  if (request.gzipAnswer) headers['Content-Encoding'] = 'gzip';
  res.writeHead(200, headers).end(request.gzipAnswer ? gzipSync(answer.body) : answer.body);
}

function fail(res: ServerResponse, queryId: string, status: number, code: number, text: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=UTF-8', 'X-ClickHouse-Query-Id': queryId, 'X-ClickHouse-Exception-Code': String(code) }).end(`${text}\n`);
}

/**
 * A front over the embedded engine of this test process (its DATA_DIR/clickhouse, which the apps of the
 * process open too), for an API started with CLICKHOUSE_URL = `url`.
 */
export async function startClickHouseHttpFront(): Promise<{ url: string; close(): Promise<void> }> {
  const front = await ClickHouseHttpFront.start({ chdb: require('chdb') as ChdbModule, path: join(testDataDir(), 'clickhouse') });
  return { url: front.url(), close: () => front.close() };
}

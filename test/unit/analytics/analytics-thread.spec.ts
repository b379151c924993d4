import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { AnalyticsThread } from '../../../src/modules/analytics/thread/analytics-thread';

/**
 * AnalyticsThread's life cycle with real threads running small scripts in place of the application:
 * one that answers, one that cannot start, one that dies on a request.
 */
const SCRIPTS = {
  answers: `
    const { parentPort, workerData } = require('node:worker_threads');
    parentPort.on('message', (m) => {
      if (m.type === 'close') process.exit(0);
      if (m.type === 'metrics') parentPort.postMessage({ type: 'metrics', id: m.id, metrics: [] });
      if (m.type === 'request') {
        const text = JSON.stringify({ url: m.request.url, body: m.request.body ? Buffer.from(m.request.body).toString() : null, db: workerData.databaseUrl });
        parentPort.postMessage({ type: 'reply', id: m.id, reply: { status: 201, headers: { 'x-answer': 'yes' }, body: Buffer.from(text) } });
      }
    });
    parentPort.postMessage({ type: 'ready' });`,
  cannotStart: `throw new Error('no database');`,
  diesOnRequest: `
    const { parentPort } = require('node:worker_threads');
    parentPort.on('message', (m) => { if (m.type === 'request') process.exit(3); });
    parentPort.postMessage({ type: 'ready' });`,
};

describe(AnalyticsThread.name, () => {
  const dir = mkdtempSync(join(tmpdir(), 'analytics-thread-'));
  const logged: string[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void logged.push(line) });
  const threads: AnalyticsThread[] = [];
  const threadRunning = (name: keyof typeof SCRIPTS) => {
    const script = join(dir, `${name}.js`);
    writeFileSync(script, SCRIPTS[name]);
    const sut = AnalyticsThread.create({ databaseUrl: 'postgres://db' }, logger, script)!;
    threads.push(sut);
    return sut;
  };

  afterAll(async () => {
    await Promise.all(threads.map((thread) => thread.close()));
    rmSync(dir, { recursive: true });
  });

  it('is absent where the build has no thread script', () => {
    expect(AnalyticsThread.create({ databaseUrl: 'x' }, logger, join(dir, 'missing.js'))).toBeNull();
  });

  it('starts on first use, and hands requests over and replies back', async () => {
    const sut = threadRunning('answers');
    expect(await sut.metrics()).toEqual([]); // not started yet: nothing asked of it
    expect(await sut.available()).toBe(true);
    const reply = await sut.forward({ method: 'POST', url: '/api/projects/1/query/', headers: {}, body: Buffer.from('{"a":1}') });
    expect(reply.status).toBe(201);
    expect(reply.headers).toEqual({ 'x-answer': 'yes' });
    expect(JSON.parse(Buffer.from(reply.body).toString())).toEqual({ url: '/api/projects/1/query/', body: '{"a":1}', db: 'postgres://db' });
  });

  it('leaves insights to the HTTP thread when the thread cannot start, without trying again at once', async () => {
    const sut = threadRunning('cannotStart');
    expect(await sut.available()).toBe(false);
    expect(await sut.available()).toBe(false);
    expect(logged.filter((line) => line.includes('analytics thread could not start'))).toHaveLength(1);
  });

  it('answers 503 for the requests a dying thread held, and starts a new thread for the next one', async () => {
    const sut = threadRunning('diesOnRequest');
    expect(await sut.available()).toBe(true);
    const reply = await sut.forward({ method: 'GET', url: '/x', headers: {}, body: null });
    expect(reply.status).toBe(503);
    expect(reply.headers['retry-after']).toBe('1');
    expect(JSON.parse(Buffer.from(reply.body).toString())).toEqual({
      type: 'server_error', code: 'server_error', detail: 'The analytics thread stopped while it computed this request. Please try again.', attr: null,
    });
    await new Promise((resolve) => setTimeout(resolve, 50)); // the exit event follows the request
    expect(await sut.available()).toBe(true);
    expect(logged.some((line) => line.includes('analytics thread exited'))).toBe(true);
  });
});

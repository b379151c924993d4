import { createServer, Server } from 'node:net';
import { explainListenError, portProblem } from '../../../src/common/process/port-check';

describe('portProblem', () => {
  let taken: Server;
  let port: number;

  beforeAll(async () => {
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    port = (taken.address() as { port: number }).port;
  });
  afterAll(() => new Promise((resolve) => taken.close(resolve)));

  it('says a taken port is in use and how to pick another', async () => {
    await expect(portProblem('127.0.0.1', port)).resolves.toBe(
      `Port ${port} is in use (another hogbase, or another program): stop it, or start this one on another port, e.g. PORT=${port + 1} npm run up.`,
    );
  });

  it('finds a free port free, and leaves it free', async () => {
    const free = createServer();
    await new Promise<void>((resolve) => free.listen(0, '127.0.0.1', resolve));
    const freePort = (free.address() as { port: number }).port;
    await new Promise((resolve) => free.close(resolve));
    await expect(portProblem('127.0.0.1', freePort)).resolves.toBeNull();
    await expect(portProblem('127.0.0.1', freePort)).resolves.toBeNull();
  });

  it('explains the other listen failures in one line', () => {
    const failure = (code: string) => Object.assign(new Error(`listen ${code}`), { code });
    expect(explainListenError(failure('EACCES'), '0.0.0.0', 80)).toBe('Port 80 needs privileges this user lacks: use a port above 1023, e.g. PORT=8000.');
    expect(explainListenError(failure('EADDRNOTAVAIL'), '10.9.9.9', 8000)).toBe('HOST 10.9.9.9 is not an address of this machine: use 0.0.0.0 (every interface) or 127.0.0.1.');
    expect(explainListenError(failure('EWHATEVER'), '0.0.0.0', 8000)).toBe('Cannot listen on 0.0.0.0:8000: listen EWHATEVER');
  });
});

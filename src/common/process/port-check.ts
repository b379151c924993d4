import { createServer } from 'node:net';

/**
 * Why the service could not listen on `host:port`, in words that say what to do, or null when the port is free.
 * Checked before anything starts, so a second `npm run up` says so in one line instead of failing later with the
 * embedded databases half started and a stack trace.
 */
export function portProblem(host: string, port: number): Promise<string | null> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => resolve(explainListenError(error, host, port)));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve(null)));
  });
}

/** A listen failure as a one-line instruction; other errors keep their own message. */
export function explainListenError(error: NodeJS.ErrnoException, host: string, port: number): string {
  if (error.code === 'EADDRINUSE') return `Port ${port} is in use (another hogbase, or another program): stop it, or start this one on another port, e.g. PORT=${port + 1} npm run up.`;
  if (error.code === 'EACCES') return `Port ${port} needs privileges this user lacks: use a port above 1023, e.g. PORT=8000.`;
  if (error.code === 'EADDRNOTAVAIL') return `HOST ${host} is not an address of this machine: use 0.0.0.0 (every interface) or 127.0.0.1.`;
  return `Cannot listen on ${host}:${port}: ${error.message}`;
}

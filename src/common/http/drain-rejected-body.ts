import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * A body refused before it was read (413) is read to its end and thrown away, up to `maxDrainBytes`, instead of the
 * connection being closed under the client. A client still writing its body onto a closed connection gets EPIPE, and
 * an SDK takes that for a network error and sends the same body again; reading it to the end lets every client see
 * the 413. Fastify marks such replies `Connection: close`; the mark is lifted only when the rest of the body is
 * known to fit the drain bound (declared length) or is chunked, and a body that goes past the bound is cut off.
 */
export function drainRejectedBody(request: FastifyRequest, reply: FastifyReply, maxDrainBytes: number): void {
  const raw = request.raw;
  if (raw.complete || raw.destroyed) return;
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxDrainBytes) return; // too big to read through: close as Fastify does
  reply.removeHeader('connection');
  let drained = 0;
  raw.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > maxDrainBytes) raw.socket?.destroy();
  });
  raw.resume();
}

import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, onRequestAsyncHookHandler } from 'fastify';
import type { AnalyticsThread } from './analytics-thread';

/**
 * The routes the analytics thread answers: insights, the persons behind them, and the query API. Any
 * route would be answered the same there (it runs the whole application); these are the ones that
 * compute for seconds.
 */
const ANALYTICS_ROUTE = /^\/api\/projects\/:project_id\/(insights\/|query\/?$|persons\/(trends|stickiness|lifecycle|funnel|funnel\/correlation|retention|path)\/?$)/;

async function readWhole(raw: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of raw) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * Hands analytics requests to the thread and writes back its reply. Requests this thread answers itself,
 * from PostgreSQL: bodies without a length (chunked) or over the limit (Fastify's own parsing refuses
 * those in the contract's shape), and every request while the thread cannot start. The hook is attached
 * to the analytics routes alone (as they are registered), so captures and flag evaluations never run it.
 */
export function registerAnalyticsForwarding(fastify: FastifyInstance, thread: AnalyticsThread, maxBodyBytes: number, onForwarded: () => void): void {
  const forward: onRequestAsyncHookHandler = async (request, reply) => {
    const length = Number(request.headers['content-length'] ?? 0);
    if (request.headers['transfer-encoding'] !== undefined || !(length <= maxBodyBytes)) return;
    if (!(await thread.available())) return;
    const body = length > 0 ? await readWhole(request.raw) : null;
    // The thread logs under the same request id as this thread.
    const headers = { ...request.headers, 'x-request-id': request.id };
    const answer = await thread.forward({ method: request.method, url: request.url, headers, body, remoteAddress: request.raw.socket.remoteAddress });
    onForwarded();
    reply.code(answer.status).headers(answer.headers);
    return reply.send(Buffer.from(answer.body.buffer, answer.body.byteOffset, answer.body.byteLength));
  };
  fastify.addHook('onRoute', (route) => {
    if (!ANALYTICS_ROUTE.test(route.url)) return;
    const own = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest];
    route.onRequest = [...own, forward];
  });
}

import type { FastifyReply } from 'fastify';

/**
 * PostHog's answer to DELETE on a soft-deleted resource (flags, cohorts): 405 with an empty body, which scripts written
 * against PostHog test by status. `Allow` is added, as on every other 405 here, to say what the path does take;
 * `PATCH {"deleted": true}` is the delete.
 */
export function answerHardDelete(reply: FastifyReply): void {
  reply.status(405).header('allow', 'GET, PATCH').send();
}

export const HARD_DELETE_RESPONSE = { status: 405, description: 'Always, with an empty body and `Allow: GET, PATCH`: soft-delete with PATCH {"deleted": true}.' };

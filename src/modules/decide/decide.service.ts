import { Injectable } from '@nestjs/common';
import type { ProjectPrincipal } from '../../common/auth/principal';
import { ApiError } from '../../common/errors/api-error';
import { parseDecideRequest } from './decide-request';
import { replyJson } from './decide-reply-json';
import { replyRequestId, ReplyFormat } from './decide-responses';
import { FlagEvaluationService } from './flag-evaluation.service';
import type { FlagSnapshot } from './flag-snapshot';
import { FlagSnapshotsService } from './flag-snapshots.service';

/** The outcome of a request that evaluates nothing (`disable_flags`, or a key of no project). */
const NO_FLAGS = { results: [], errors: false };

/** `/decide/` and `/flags/`: parse the request, evaluate against the cached snapshot, shape the reply. */
@Injectable()
export class DecideService {
  constructor(
    private readonly snapshots: FlagSnapshotsService,
    private readonly evaluation: FlagEvaluationService,
  ) {}

  /**
   * The reply as JSON text (see decide-reply-json.ts). `httpRequestId` is the request's id (a client's
   * `X-Request-Id` when it sent one); as in PostHog it becomes `requestId` when it is a UUID.
   */
  async reply(caller: ProjectPrincipal, body: unknown, format: ReplyFormat, httpRequestId: string): Promise<string> {
    const request = parseDecideRequest(body);
    const requestId = replyRequestId(httpRequestId);
    const outcome =
      request.disableFlags || caller.projectId === null ? NO_FLAGS : await this.evaluation.evaluate(await this.snapshot(caller.projectId), request);
    // Named fields, not a spread: outcomes come in several shapes, and a spread of them takes V8's slow path.
    return replyJson(format, { results: outcome.results, errors: outcome.errors, requestId, evaluatedAt: Date.now() }, caller.token);
  }

  /** Without its flags nothing can be answered truthfully: a retryable 503, and SDKs keep what they had. */
  private async snapshot(projectId: number): Promise<FlagSnapshot> {
    try {
      return await this.snapshots.get(projectId);
    } catch {
      throw ApiError.unavailable('Feature flags could not be loaded. Please try again.');
    }
  }
}

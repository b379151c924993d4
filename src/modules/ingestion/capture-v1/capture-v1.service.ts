import { Injectable } from '@nestjs/common';
import type { ProjectPrincipal } from '../../../common/auth/principal';
import { CaptureService } from '../capture.service';
import { captureV1Results } from './capture-v1-reply';
import { CaptureV1Headers, parseCaptureV1Batch } from './capture-v1-request';

export interface CaptureV1Input {
  headers: CaptureV1Headers;
  /** The decoded JSON body. */
  body: unknown;
  ip: string | null;
  decodedLength: number;
  needsCleaning: boolean;
}

/** Capture v1 on top of the v0 pipeline: the batch becomes v0 events, and every event gets its own result. */
@Injectable()
export class CaptureV1Service {
  constructor(private readonly capture: CaptureService) {}

  async accept(principal: ProjectPrincipal, input: CaptureV1Input): Promise<ReturnType<typeof captureV1Results>> {
    const batch = parseCaptureV1Batch(input.body, input.headers);
    const drops = new Map(batch.drops);
    if (batch.events.length > 0) {
      // The request timestamp stands in for v0's sent_at: events are corrected for the client's clock skew.
      const outcome = await this.capture.accept(principal, { batch: batch.events.map((e) => e.event), sent_at: input.headers.clientTime }, {
        path: '/i/v1/analytics/events',
        query: {},
        ip: input.ip,
        nowMs: Date.now(),
        decodedLength: input.decodedLength,
        needsCleaning: input.needsCleaning,
      });
      for (const [index, reason] of outcome.dropped) drops.set(batch.uuids[batch.events[index].position], reason);
    }
    return captureV1Results(batch.uuids, drops);
  }
}

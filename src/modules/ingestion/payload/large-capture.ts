import { authenticationFields, findProjectToken } from '../../../common/auth/key-sources';
import { ApiError } from '../../../common/errors/api-error';
import { prepareCapture } from '../capture-preparation';
import { MAX_JOB_BYTES, serializeEvents } from '../job-splitting';
import { partitionOf } from '../partitioning';
import type { DecodedPayload } from './payload-decoding';
import { refusalOf, type CaptureRequestContext, type WorkerDecoded } from './worker-protocol';

/**
 * The rest of capture for a large payload, on the payload worker right after decoding: extracted, normalised,
 * partitioned and serialised (capture-preparation.ts, the code the API runs on small payloads), so the event loop never
 * holds its events, only their JSON to frame and enqueue. Capture's own refusals wait for the caller to be
 * authenticated, as they would on the API. What returns as the value is only what authentication reads.
 */
export function prepareLargeCapture(decoded: DecodedPayload, request: CaptureRequestContext): WorkerDecoded {
  const partitionToken = findProjectToken(decoded.value, request.query);
  const value = authenticationFields(decoded.value);
  try {
    const prepared = prepareCapture(decoded.value, {
      ...request,
      decodedLength: decoded.decodedLength,
      needsCleaning: decoded.needsCleaning,
      partitionOf: (distinctId) => partitionOf(partitionToken ?? '', distinctId, request.partitions),
    });
    const { dropped, corrections, received } = prepared;
    const capture = { partitionToken, nowMs: request.nowMs, jobs: serializeEvents(prepared.byPartition, MAX_JOB_BYTES), dropped, corrections, received };
    return { ...decoded, value, capture };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { ...decoded, value, capture: { partitionToken, refused: refusalOf(error) } };
  }
}

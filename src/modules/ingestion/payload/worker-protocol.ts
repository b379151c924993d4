import { ApiError, type ErrorBody } from '../../../common/errors/api-error';
import type { IngestionWarning } from '../../ingestion-warnings/ingestion-warning';
import type { SerializedEvents } from '../job-splitting';
import type { DecodeOptions, DecodedPayload, LocatedPayload } from './payload-decoding';

/** A refusal as plain data: an ApiError does not survive the trip between threads as itself. */
export type Refusal = ErrorBody & { status: number; headers: Record<string, string> };

export function refusalOf(error: ApiError): Refusal {
  return { status: error.status, ...error.toBody(), headers: error.headers };
}

export function errorOf(refusal: Refusal): ApiError {
  return new ApiError(refusal.status, refusal.type, refusal.code, refusal.detail, refusal.attr, refusal.headers);
}

/** What the payload worker is sent: a located payload (its bytes handed over, not copied), and for capture its context. */
export interface WorkerRequest {
  id: number;
  bytes: Uint8Array<ArrayBuffer>;
  compression: LocatedPayload['compression'];
  options: DecodeOptions;
  capture?: CaptureRequestContext;
}

/** A capture payload the worker prepared: `value` holds only what authentication reads (see authenticationFields). */
export type WorkerDecoded = DecodedPayload & { capture?: SerializedCapture };

export type WorkerReply = { id: number; decoded: WorkerDecoded } | { id: number; refused: Refusal } | { id: number; failed: string };

/** The request's side of capture's context, which the payload worker needs to prepare a large payload. */
export interface CaptureRequestContext {
  path: string;
  query: Record<string, unknown>;
  ip: string | null;
  nowMs: number;
  partitions: number;
}

/** Capture's refusal of the payload (PostHog's body-shape and key rules), answered once the caller is authenticated. */
export interface RefusedCapture {
  partitionToken: string | null;
  refused: Refusal;
}

/** A large payload's events ready for the queues, and what capture dropped or corrected on the way. */
export interface PreparedCapture {
  /** The project key the events were partitioned by: the one authentication reads from this request. */
  partitionToken: string | null;
  /** When the request arrived, as the events were normalised with it: their jobs' `receivedAt`. */
  nowMs: number;
  jobs: SerializedEvents[];
  dropped: IngestionWarning[];
  corrections: IngestionWarning[];
  received: number;
}

export type SerializedCapture = RefusedCapture | PreparedCapture;

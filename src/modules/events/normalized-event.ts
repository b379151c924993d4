/** An event ready to be persisted: everything the worker needs, already validated and normalised. */
export interface NormalizedEvent {
  uuid: string;
  event: string;
  distinct_id: string;
  properties: Record<string, unknown>;
  /** ISO 8601, skew-corrected. */
  timestamp: string;
  elements_chain: string;
}

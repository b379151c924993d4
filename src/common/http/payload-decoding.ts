import LZString from 'lz-string';
import { ApiError } from '../errors/api-error';
import { payloadTooLarge } from '../errors/http-error-mapping';
import { JSON_TEXT_NEEDS_CLEANING } from '../json/clean-text';
import { holdLongStrings, type HeldStrings } from '../json/held-strings';
import { jsonLongerThan } from '../json/json-byte-length';
import { nonFiniteToNull } from '../json/non-finite-json';
import { BOMB_PROBE_BYTES, gzipClaimedSize, inflateBounded, inflateCountingPastTrust, trustedOutputBytes, type Encoding } from './bounded-inflate';
import { queryText } from './query-values';

/** What a capture or decide request carries before we know what is inside. */
export interface RawPayloadRequest {
  body: Buffer | undefined;
  contentType: string | undefined;
  contentEncoding: string | undefined;
  query: Record<string, unknown>;
}

/** Payloads from this size on (decoded, or claimed by a gzip trailer) are decoded off the event loop when a decoder is given. */
export const LARGE_PAYLOAD_BYTES = 1024 * 1024;

/** What decodes large payloads off the event loop (large-payload-decoder.ts, on a thread of its own). */
export interface OffLoopDecoder {
  decode(job: LargePayloadJob): Promise<DecodedPayload>;
}

export interface DecodeOptions {
  /** Upper bound on the decompressed size: gzip and lz64 bombs stop here with 413. */
  maxDecompressedBytes: number;
  /** Leaves `[]` and `{"batch": []}` to the route (capture v1 names them its own way) instead of `no_data`. */
  acceptEmptyList?: boolean;
  /**
   * Inflates and parses payloads of LARGE_PAYLOAD_BYTES and more off the event loop, one at a time; without it every
   * payload is decoded inline (each bounded by its own cap only).
   */
  largeDecoder?: OffLoopDecoder | null;
  /** With the large decoder: also find the payload's events longer than this (JSON bytes), there rather than here. */
  measureItemsAbove?: number;
  /** With the large decoder: hold the events' property strings of this many characters or more (see held-strings.ts). */
  holdStringsAbove?: number;
  /** Legacy capture paths unwrap a base64 payload a second time, as PostHog does. */
  unwrapBase64Twice?: boolean;
  /** The media types a body may be sent as (a body without a type is read too); without the list, any. */
  bodyTypes?: readonly string[];
}

export interface DecodedPayload {
  value: unknown;
  /** Characters of decoded JSON text: bounds the size of any event inside. */
  decodedLength: number;
  /** Whether the text holds escapes (NUL, surrogates) that strings must be cleaned of before storage. */
  needsCleaning: boolean;
  /** Positions of the events (array items, or `batch` items) longer than `measureItemsAbove`; absent when not measured. */
  oversizeItems?: number[];
  /** The events' long property strings, replaced by markers in `value`, when the large decoder was asked to hold them. */
  held?: HeldStrings;
}

/** A large payload as the decoding thread gets it: the located bytes, still compressed when `encoding` says so. */
export interface LargePayloadJob {
  bytes: Buffer;
  encoding: Encoding | 'lz64' | null;
  maxDecompressedBytes: number;
  acceptEmptyList: boolean;
  measureItemsAbove?: number;
  holdStringsAbove?: number;
  unwrapBase64Twice?: boolean;
}

/** serde_json's recursion limit, which PostHog's capture inherits. */
export const MAX_JSON_DEPTH = 128;

type Compression = 'gzip' | 'deflate' | 'br' | 'lz64' | 'base64' | null;

const GZIP_MAGIC = [0x1f, 0x8b];
const STRICT_BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const UTF8 = new TextDecoder('utf-8', { fatal: true });

export const invalidPayload = (reason: string) =>
  new ApiError(400, 'validation_error', 'invalid_payload', `Malformed request data: ${reason}`);

const unsupportedContentType = (type: string, accepted: readonly string[]) =>
  new ApiError(400, 'validation_error', 'unsupported_content_type', `Unsupported content type "${type}": send the body as ${accepted.join(', ')}.`);

/** The media type of a Content-Type header, lower-cased, without parameters; empty when there is none. */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0].trim().toLowerCase();
}

/** PostHog's `no_data` code, with a detail that says which of the three ways to send nothing happened. */
export const noData = (detail = 'the request has no body and no ?data= parameter. Send the payload as the body of a POST (JSON, optionally gzip), or base64-encoded in ?data=.') =>
  new ApiError(400, 'validation_error', 'no_data', `No data found: ${detail}`);

const formWithoutData = () =>
  noData(
    'the body was sent as a form (Content-Type: application/x-www-form-urlencoded, which is what `curl -d` sends) without a data= field. Send JSON with the header "Content-Type: application/json", or put the payload in a data= form field.',
  );

const emptyPayload = () => noData('the payload is empty. Send a JSON object (or, on capture, a list of events).');

export const emptyEventList = () => noData('the list of events is empty. Send at least one event.');

/** A query parameter's last value, when it is not empty. */
function queryString(query: Record<string, unknown>, name: string): string | undefined {
  return queryText(query[name]) || undefined;
}

/** Whether the payload is in `?data=` (legacy GET) rather than in the body. */
export function hasQueryPayload(query: Record<string, unknown>): boolean {
  return queryString(query, 'data') !== undefined;
}

function compressionFrom(hint: string | undefined): Compression {
  switch (hint?.trim().toLowerCase()) {
    case 'gzip':
    case 'gzip-js':
      return 'gzip';
    case 'deflate':
      return 'deflate';
    case 'br':
      return 'br';
    case 'lz64':
    case 'lz-string':
      return 'lz64';
    case 'base64':
    case 'b64':
      return 'base64';
    default:
      return null;
  }
}

/** The payload bytes and the compression hint, from `?data=`, a `data=` form body or the raw body. */
function locatePayload(request: RawPayloadRequest, bodyTypes: readonly string[] | undefined): { bytes: Buffer; hint: string | undefined } {
  const fromQuery = queryString(request.query, 'data');
  const queryHint = queryString(request.query, 'compression');
  if (fromQuery) return { bytes: Buffer.from(fromQuery, 'utf8'), hint: queryHint };
  const body = request.body;
  if (!body || body.length === 0) throw noData();
  const type = mediaType(request.contentType);
  if (bodyTypes && type !== '' && !bodyTypes.includes(type)) throw unsupportedContentType(type, bodyTypes);
  if (type === 'application/x-www-form-urlencoded') {
    const form = new URLSearchParams(body.toString('latin1'));
    // `+` in base64 arrives as a space once the form is decoded.
    const data = form.get('data')?.replace(/ /g, '+');
    if (!data) throw formWithoutData();
    return { bytes: Buffer.from(data, 'latin1'), hint: queryHint ?? form.get('compression') ?? request.contentEncoding };
  }
  return { bytes: body, hint: queryHint ?? request.contentEncoding };
}

function isStrictBase64(bytes: Buffer): boolean {
  if (bytes.length === 0 || bytes.length % 4 !== 0) return false;
  const first = bytes[0];
  // JSON never needs unwrapping; this keeps `true`, `1234` and friends from being mistaken for base64.
  if (first === 0x7b || first === 0x5b) return false;
  return STRICT_BASE64.test(bytes.toString('latin1'));
}

function fromBase64(bytes: Buffer): Buffer {
  const text = bytes.toString('latin1').trim();
  if (!STRICT_BASE64.test(text.replace(/-/g, '+').replace(/_/g, '/'))) throw invalidPayload('invalid base64');
  return Buffer.from(text, 'base64');
}


function hasGzipMagic(bytes: Buffer): boolean {
  return bytes.length >= 2 && bytes[0] === GZIP_MAGIC[0] && bytes[1] === GZIP_MAGIC[1];
}

function utf8(bytes: Buffer): string {
  try {
    return UTF8.decode(bytes);
  } catch {
    throw invalidPayload('invalid UTF-8');
  }
}

/**
 * Whether `value`, parsed from `text`, nests deeper than `limit`. A text with no more than `limit` opening brackets
 * (in strings or not) cannot: most payloads are answered by counting them with indexOf, without walking a value whose
 * thousands of keys someone else chose.
 */
export function parsedJsonTooDeep(text: string, value: unknown, limit: number): boolean {
  let openings = 0;
  for (const bracket of ['{', '[']) {
    for (let at = text.indexOf(bracket); at !== -1 && openings <= limit; at = text.indexOf(bracket, at + 1)) openings++;
  }
  return openings > limit && jsonDepthExceeds(value, limit);
}

/** Deepest nesting of a parsed JSON value, walked iteratively so no input can overflow the stack. */
function jsonDepthExceeds(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > limit) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}

/**
 * The decoding pipeline of PostHog's capture: locate the payload,
 * unwrap base64, gunzip (by hint, header or magic bytes) or lz64 (by hint), UTF-8, JSON.
 */
export async function decodePayload(request: RawPayloadRequest, options: DecodeOptions): Promise<DecodedPayload> {
  const { bytes: located, hint } = locatePayload(request, options.bodyTypes);
  const compression = compressionFrom(hint);
  let bytes = located;
  if (compression === 'base64' || (compression !== 'lz64' && !hasGzipMagic(bytes) && isStrictBase64(bytes))) {
    bytes = fromBase64(bytes);
  }
  if (compression === 'lz64') return decodeLz64(bytes, options);
  const encoding = compression === 'deflate' || compression === 'br' ? compression : compression === 'gzip' || hasGzipMagic(bytes) ? 'gzip' : null;
  return encoding === null ? parsedBytes(bytes, options) : decodeCompressed(bytes, encoding, options);
}

/** lz-string cannot stop midway, and a few kilobytes of lz64 can decompress to hundreds of megabytes: on the thread when there is one. */
function decodeLz64(bytes: Buffer, options: DecodeOptions): Promise<DecodedPayload> | DecodedPayload {
  if (options.largeDecoder) return options.largeDecoder.decode(largePayloadJob(bytes, 'lz64', options));
  return parsedText(lz64Text(bytes, options.maxDecompressedBytes), options);
}

/**
 * A gzip trailer states the size it inflates to. Past the cap the payload is too large or not valid gzip: its first
 * BOMB_PROBE_BYTES tell which (413 for a bomb, 400 for garbage), and the rest is never inflated. One that claims a
 * large output goes straight to the thread. The others inflate inline first, up to LARGE_PAYLOAD_BYTES, so ordinary
 * SDK batches never wait on the thread; what passes it starts over there. A payload also moves there once its output
 * passes what it can be trusted to inflate to (trustedOutputBytes: a gzip trailer's claim, 64 bytes out per byte in):
 * a forged trailer, a bomb, or rarely several gzip members, all better inflated off the event loop, where they are
 * counted before they are kept (inflateCountingPastTrust). The claim only refuses and routes: the limits hold while
 * inflating.
 */
async function decodeCompressed(bytes: Buffer, encoding: Encoding, options: DecodeOptions): Promise<DecodedPayload> {
  const { maxDecompressedBytes: limit, largeDecoder: decoder } = options;
  const invalid = () => invalidCompressed(encoding);
  const claimed = encoding === 'gzip' ? gzipClaimedSize(bytes) : 0;
  if (claimed > limit) {
    const probe = await inflateBounded(encoding, bytes, Math.min(limit, BOMB_PROBE_BYTES), invalid);
    throw probe === null ? payloadTooLarge(limit) : invalid();
  }
  const onThread = () => decoder!.decode(largePayloadJob(bytes, encoding, options));
  if (decoder && claimed >= LARGE_PAYLOAD_BYTES) return onThread();
  const inlineLimit = decoder ? Math.min(LARGE_PAYLOAD_BYTES, trustedOutputBytes(encoding, bytes, limit)) : limit;
  const inflated = await inflateBounded(encoding, bytes, inlineLimit, invalid);
  if (inflated !== null) return parsedBytes(inflated, options);
  if (inlineLimit < limit) return onThread();
  throw payloadTooLarge(limit);
}

function invalidCompressed(encoding: Encoding): ApiError {
  return invalidPayload(`invalid ${encoding === 'gzip' ? 'GZIP' : encoding} data`);
}

function largePayloadJob(bytes: Buffer, encoding: LargePayloadJob['encoding'], options: DecodeOptions): LargePayloadJob {
  const { maxDecompressedBytes, measureItemsAbove, holdStringsAbove, unwrapBase64Twice } = options;
  return { bytes, encoding, maxDecompressedBytes, acceptEmptyList: options.acceptEmptyList ?? false, measureItemsAbove, holdStringsAbove, unwrapBase64Twice };
}

/** What the decoding thread does: inflate up to the cap (413 past it; see inflateCountingPastTrust), then the same steps as inline. */
export function decodeLargePayload(job: LargePayloadJob): DecodedPayload {
  const { encoding, maxDecompressedBytes } = job;
  if (encoding === 'lz64') return parsedText(lz64Text(job.bytes, maxDecompressedBytes), { maxDecompressedBytes, acceptEmptyList: job.acceptEmptyList });
  const bytes = encoding === null ? job.bytes : inflateCountingPastTrust(encoding, job.bytes, maxDecompressedBytes, () => invalidCompressed(encoding));
  if (bytes === null) throw payloadTooLarge(maxDecompressedBytes);
  const decoded = decodeJsonBytes(unwrappedJson(bytes, job.unwrapBase64Twice), job.acceptEmptyList, job.measureItemsAbove);
  // After measuring: an event's size is that of the strings it was sent with.
  if (job.holdStringsAbove !== undefined) decoded.held = holdLongStrings(payloadEvents(decoded.value), job.holdStringsAbove) ?? undefined;
  return decoded;
}

function lz64Text(bytes: Buffer, maxDecompressedBytes: number): string {
  const text = LZString.decompressFromBase64(bytes.toString('latin1').replace(/ /g, '+')) ?? '';
  if (text === '') throw invalidPayload('invalid lz64 data');
  if (Buffer.byteLength(text, 'utf8') > maxDecompressedBytes) throw payloadTooLarge(maxDecompressedBytes);
  return text;
}

async function parsedBytes(bytes: Buffer, options: DecodeOptions): Promise<DecodedPayload> {
  if (options.largeDecoder && bytes.length >= LARGE_PAYLOAD_BYTES) return options.largeDecoder.decode(largePayloadJob(bytes, null, options));
  return decodeJsonBytes(unwrappedJson(bytes, options.unwrapBase64Twice), options.acceptEmptyList ?? false);
}

/** Legacy capture paths unwrap a base64 payload a second time, as PostHog does. */
function unwrappedJson(bytes: Buffer, unwrapBase64Twice: boolean | undefined): Buffer {
  return unwrapBase64Twice && isStrictBase64(bytes) ? fromBase64(bytes) : bytes;
}

/** UTF-8 JSON bytes → the payload, with its oversize events when asked. */
export function decodeJsonBytes(bytes: Buffer, acceptEmptyList: boolean, measureItemsAbove?: number): DecodedPayload {
  const decoded = parsedText(utf8(bytes), { maxDecompressedBytes: 0, acceptEmptyList });
  if (measureItemsAbove !== undefined) decoded.oversizeItems = oversizeItems(decoded.value, measureItemsAbove);
  return decoded;
}

/** The events of a capture payload (an array, a `{batch}` or one event) whose JSON is longer than `limit`. */
function oversizeItems(value: unknown, limit: number): number[] {
  return payloadEvents(value).flatMap((item, index) => (jsonLongerThan(item, limit) ? [index] : []));
}

/** The events of a capture payload: an array, a `{batch}`'s items, or the payload itself as one event. */
function payloadEvents(value: unknown): unknown[] {
  const batch = (value as { batch?: unknown } | null)?.batch;
  return Array.isArray(value) ? value : Array.isArray(batch) ? batch : [value];
}

function parsedText(text: string, options: DecodeOptions): DecodedPayload {
  return { value: parseJsonPayload(text, options.acceptEmptyList), decodedLength: text.length, needsCleaning: JSON_TEXT_NEEDS_CLEANING.test(text) };
}

/** `[]` and `{"batch": []}` carry nothing: PostHog answers no_data before looking at keys. */
function isEmptyPayload(value: unknown): boolean {
  if (Array.isArray(value)) return value.length === 0;
  const batch = (value as { batch?: unknown } | null)?.batch;
  return Array.isArray(batch) && batch.length === 0;
}

/** JSON with Python's `NaN`/`Infinity`, read as null as PostHog does; otherwise the first parse error. */
function parseWithNonFiniteNumbers(text: string, parseError: unknown): unknown {
  const rewritten = nonFiniteToNull(text);
  if (rewritten !== null) {
    try {
      return JSON.parse(rewritten);
    } catch {
      // Malformed for another reason too: report the error of the text as sent.
    }
  }
  throw invalidPayload(parseError instanceof Error ? parseError.message : 'invalid JSON');
}

export function parseJsonPayload(text: string, acceptEmptyList = false): unknown {
  if (text.trim() === '') throw emptyPayload();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    value = parseWithNonFiniteNumbers(text, error);
  }
  if (parsedJsonTooDeep(text, value, MAX_JSON_DEPTH)) throw invalidPayload(`nesting deeper than ${MAX_JSON_DEPTH} levels`);
  if (!acceptEmptyList && isEmptyPayload(value)) throw emptyEventList();
  return value;
}

import LZString from 'lz-string';
import { ApiError } from '../../../common/errors/api-error';
import { payloadTooLarge } from '../../../common/errors/http-error-mapping';
import { mediaType } from '../../../common/http/media-type';
import { queryText } from '../../../common/http/query-values';
import { JSON_TEXT_NEEDS_CLEANING } from '../../../common/json/clean-text';
import { MAX_JSON_DEPTH, parsedJsonTooDeep } from '../../../common/json/json-depth';
import { nonFiniteToNull } from '../../../common/json/non-finite-json';
import { BOMB_PROBE_BYTES, gzipClaimedSize, inflateWithin } from './inflate';

/** What a capture or decide request carries before we know what is inside. */
export interface RawPayloadRequest {
  body: Buffer | undefined;
  contentType: string | undefined;
  contentEncoding: string | undefined;
  query: Record<string, unknown>;
}

/**
 * Payloads from this size on (decoded, or claimed by a gzip trailer) are decoded by the payload worker: `JSON.parse`
 * of a 5 MB batch holds an event loop for 10–20 ms, and a round trip to the worker costs more than the work below it.
 */
export const LARGE_PAYLOAD_BYTES = 1024 * 1024;

export interface DecodeOptions {
  /** Upper bound on the decompressed size: gzip and lz64 bombs stop here with 413. */
  maxDecompressedBytes: number;
  /** Leaves `[]` and `{"batch": []}` to the route (capture v1 names them its own way) instead of `no_data`. */
  acceptEmptyList?: boolean;
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
}

/** The payload's bytes once found and unwrapped from base64, and how they are compressed. */
export interface LocatedPayload {
  bytes: Buffer;
  compression: 'gzip' | 'deflate' | 'br' | 'lz64' | null;
}

/** Decodes a large located payload elsewhere (the payload worker); the decoding then starts over there. */
export type LargePayloadHandler = (located: LocatedPayload) => Promise<DecodedPayload>;

const GZIP_MAGIC = [0x1f, 0x8b];
const STRICT_BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const UTF8 = new TextDecoder('utf-8', { fatal: true });

export const invalidPayload = (reason: string) =>
  new ApiError(400, 'validation_error', 'invalid_payload', `Malformed request data: ${reason}`);

const unsupportedContentType = (type: string, accepted: readonly string[]) =>
  new ApiError(400, 'validation_error', 'unsupported_content_type', `Unsupported content type "${type}": send the body as ${accepted.join(', ')}.`);

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

type Hint = LocatedPayload['compression'] | 'base64';

function compressionFrom(hint: string | undefined): Hint {
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
function findPayload(request: RawPayloadRequest, bodyTypes: readonly string[] | undefined): { bytes: Buffer; hint: string | undefined } {
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

/** Locates the payload and unwraps base64 (by hint, or when it is strict base64 and not gzip); names its compression. */
export function locatePayload(request: RawPayloadRequest, options: Pick<DecodeOptions, 'bodyTypes'>): LocatedPayload {
  const { bytes: found, hint } = findPayload(request, options.bodyTypes);
  const compression = compressionFrom(hint);
  const bytes = compression === 'base64' || (compression !== 'lz64' && !hasGzipMagic(found) && isStrictBase64(found)) ? fromBase64(found) : found;
  if (compression === 'lz64' || compression === 'deflate' || compression === 'br') return { bytes, compression };
  return { bytes, compression: compression === 'gzip' || hasGzipMagic(bytes) ? 'gzip' : null };
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

/**
 * PostHog's capture decoding: locate the payload, unwrap base64, inflate (gzip by hint, header or magic bytes;
 * deflate, brotli or lz64 by hint) within the decompressed cap, UTF-8, JSON. With `large`, a payload of
 * LARGE_PAYLOAD_BYTES or more is handed to it: at once when its size is known from the bytes (plain JSON, lz64, a gzip
 * trailer's claim), or once inflating here passes that size.
 */
export async function decodePayload(request: RawPayloadRequest, options: DecodeOptions, large?: LargePayloadHandler): Promise<DecodedPayload> {
  const located = locatePayload(request, options);
  const cap = options.maxDecompressedBytes;
  // A gzip trailer claiming more than the cap is a bomb or garbage: refused from its first bytes, here.
  if (located.compression === 'gzip' && gzipClaimedSize(located.bytes) > cap) throw await bombOrGarbage(located.bytes, cap);
  if (large && isLarge(located)) return large(located);
  const limit = large ? Math.min(cap, LARGE_PAYLOAD_BYTES) : cap;
  const decoded = await decodeWithin(located, options, limit);
  if (decoded !== null) return decoded;
  if (limit < cap) return large!(located);
  throw payloadTooLarge(cap);
}

/** Decodes a located payload within the cap (the payload worker's whole job for a large one). */
export async function decodeLocated(located: LocatedPayload, options: DecodeOptions): Promise<DecodedPayload> {
  const cap = options.maxDecompressedBytes;
  const decoded = await decodeWithin(located, options, cap);
  if (decoded === null) throw payloadTooLarge(cap);
  return decoded;
}

/** Known to be large before inflating: lz-string cannot stop midway, and plain or gzip sizes show in the bytes. */
function isLarge({ bytes, compression }: LocatedPayload): boolean {
  if (compression === 'lz64') return true;
  if (compression === 'gzip') return gzipClaimedSize(bytes) >= LARGE_PAYLOAD_BYTES;
  return compression === null && bytes.length >= LARGE_PAYLOAD_BYTES;
}

async function bombOrGarbage(bytes: Buffer, cap: number): Promise<ApiError> {
  const probe = await inflateWithin('gzip', bytes, Math.min(cap, BOMB_PROBE_BYTES), () => invalidCompressed('gzip'));
  return probe === null ? payloadTooLarge(cap) : invalidCompressed('gzip');
}

/** The payload decoded, or null when its text would pass `limit` bytes. */
async function decodeWithin(located: LocatedPayload, options: DecodeOptions, limit: number): Promise<DecodedPayload | null> {
  const { bytes, compression } = located;
  if (compression === 'lz64') {
    const text = lz64Text(bytes, limit);
    return text === null ? null : parsedText(text, options.acceptEmptyList);
  }
  const inflated = compression === null ? (bytes.length > limit ? null : bytes) : await inflateWithin(compression, bytes, limit, () => invalidCompressed(compression));
  if (inflated === null) return null;
  const json = options.unwrapBase64Twice && isStrictBase64(inflated) ? fromBase64(inflated) : inflated;
  return parsedText(utf8(json), options.acceptEmptyList);
}

function invalidCompressed(compression: 'gzip' | 'deflate' | 'br'): ApiError {
  return invalidPayload(`invalid ${compression === 'gzip' ? 'GZIP' : compression} data`);
}

/** lz-string cannot stop midway: a few kilobytes can decompress to hundreds of megabytes, measured afterwards. */
function lz64Text(bytes: Buffer, limit: number): string | null {
  const text = LZString.decompressFromBase64(bytes.toString('latin1').replace(/ /g, '+')) ?? '';
  if (text === '') throw invalidPayload('invalid lz64 data');
  return Buffer.byteLength(text, 'utf8') > limit ? null : text;
}

function utf8(bytes: Buffer): string {
  try {
    return UTF8.decode(bytes);
  } catch {
    throw invalidPayload('invalid UTF-8');
  }
}

function parsedText(text: string, acceptEmptyList = false): DecodedPayload {
  return { value: parseJsonPayload(text, acceptEmptyList), decodedLength: text.length, needsCleaning: JSON_TEXT_NEEDS_CLEANING.test(text) };
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

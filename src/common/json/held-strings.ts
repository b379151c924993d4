import { randomBytes } from 'node:crypto';
import { cleanString, setOwn } from './clean-text';
import { isJsonObject } from './json-object';

/**
 * The long strings of a large capture payload, kept out of the event loop's heap. The decoding thread replaces each
 * with a marker and hands over its JSON text as bytes (a transfer, not a copy); capture reads markers as it would read
 * the strings (none of the properties it looks at is held), and the job's JSON gets each string's bytes back in
 * place of its marker on the job-encoding thread. Without this, every 1 MB string of a payload is copied onto the
 * loop's heap (3–4 ms each on a busy two-core host) and copied off it again to be serialised.
 */
export interface HeldStrings {
  /** New for each payload: no string sent from outside can equal a marker, because none could know it. */
  nonce: string;
  /** Each held string's JSON text (quoted, escaped, cleaned of NUL and lone surrogates), UTF-8, by index. */
  json: Uint8Array<ArrayBuffer>[];
}

const MARKER_PREFIX = 'hb-held:';
const DIGITS = /^\d{1,9}$/;
const UTF8 = new TextEncoder();

/**
 * Property keys capture reads or lifts with their meaning as strings: never held. Everything `$`-prefixed is left too
 * (SDK context, person updates, groups, elements), so only an application's own properties are held.
 */
const READ_AT_CAPTURE = new Set(['distinct_id', 'token']);

/**
 * Replaces, in each event's own `properties`, every string of at least `minLength` characters under a key capture does
 * not read, with a marker; the held strings are returned (null when none was long enough). The events change in place.
 */
export function holdLongStrings(events: readonly unknown[], minLength: number): HeldStrings | null {
  let held: HeldStrings | null = null;
  for (const event of events) {
    const properties = isJsonObject(event) ? event.properties : undefined;
    if (!isJsonObject(properties)) continue;
    for (const [key, value] of Object.entries(properties)) {
      if (typeof value !== 'string' || value.length < minLength || key.startsWith('$') || READ_AT_CAPTURE.has(key)) continue;
      held ??= { nonce: randomBytes(16).toString('hex'), json: [] };
      setOwn(properties, key, markerOf(held.nonce, held.json.length));
      held.json.push(UTF8.encode(JSON.stringify(cleanString(value))));
    }
  }
  return held;
}

/** What every marker of one payload starts with; its index follows. */
function markerPrefix(nonce: string): string {
  return `${MARKER_PREFIX}${nonce}:`;
}

function markerOf(nonce: string, index: number): string {
  return `${markerPrefix(nonce)}${index}`;
}

/** The index a string marks, or -1 when it is not one of the markers that start with `prefix`. */
function markedIndex(value: string, prefix: string): number {
  if (!value.startsWith(prefix)) return -1; // every string of the job is asked: no slice for those that are not
  const digits = value.slice(prefix.length);
  return DIGITS.test(digits) ? Number(digits) : -1;
}

/** Calls `visit` with every marker string found in `value` (walked iteratively), its index and a setter to replace it. */
function forEachMarker(value: unknown, nonce: string, visit: (index: number, replace: (by: unknown) => void) => void): void {
  const prefix = markerPrefix(nonce);
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object') continue;
    const entries: Array<[string | number, unknown]> = Array.isArray(node) ? node.map((item, index) => [index, item]) : Object.entries(node);
    for (const [key, child] of entries) {
      if (typeof child !== 'string') {
        stack.push(child);
        continue;
      }
      const index = markedIndex(child, prefix);
      if (index >= 0) visit(index, (by) => (Array.isArray(node) ? (node[key as number] = by) : setOwn(node as Record<string, unknown>, key as string, by)));
    }
  }
}

/** The held strings `value` refers to, by index (a string lifted into `$set_once` is referred to twice, and listed once). */
export function heldStringsIn(value: unknown, held: HeldStrings): Map<number, Uint8Array<ArrayBuffer>> {
  const json = new Map<number, Uint8Array<ArrayBuffer>>();
  forEachMarker(value, held.nonce, (index) => json.set(index, requireHeld(held.json[index], index)));
  return json;
}

/** Bytes of the held strings `value` refers to, each counted wherever it is referred to (as they will be in its JSON). */
export function heldBytesIn(value: unknown, held: HeldStrings): number {
  let bytes = 0;
  forEachMarker(value, held.nonce, (index) => (bytes += held.json[index]?.byteLength ?? 0));
  return bytes;
}

/** Puts the held strings back into `value` in place of their markers, for queues that store objects, not JSON. */
export function restoreHeldStrings(value: unknown, held: HeldStrings): void {
  const decoder = new TextDecoder();
  forEachMarker(value, held.nonce, (index, replace) => replace(JSON.parse(decoder.decode(requireHeld(held.json[index], index)))));
}

/**
 * `JSON.stringify(value)` as UTF-8, with each marker (quotes included) replaced by its held string's JSON text: the
 * same bytes as the value with its strings would give. A marker that is not a whole string, or an index without
 * bytes, is an error: a job is refused rather than stored with a marker in place of data.
 */
export function jsonWithHeldStrings(value: unknown, nonce: string, json: ReadonlyMap<number, Uint8Array>): Uint8Array<ArrayBuffer> {
  const text = JSON.stringify(value);
  const needle = `"${markerPrefix(nonce)}`;
  const pieces: Uint8Array[] = [];
  let from = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, from)) {
    const close = text.indexOf('"', at + needle.length);
    const digits = text.slice(at + needle.length, close);
    if (close === -1 || !DIGITS.test(digits)) throw new Error('held string marker is not a whole JSON string');
    pieces.push(UTF8.encode(text.slice(from, at)), requireHeld(json.get(Number(digits)), Number(digits)));
    from = close + 1;
  }
  pieces.push(UTF8.encode(text.slice(from)));
  return concatBytes(pieces);
}

function requireHeld<T extends Uint8Array>(bytes: T | undefined, index: number): T {
  if (!bytes) throw new Error(`held string ${index} is missing`);
  return bytes;
}

/** One fresh array (never a slice of a pooled buffer), so it can be handed over without a copy. */
function concatBytes(pieces: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(pieces.reduce((sum, piece) => sum + piece.byteLength, 0));
  let offset = 0;
  for (const piece of pieces) {
    out.set(piece, offset);
    offset += piece.byteLength;
  }
  return out;
}

/**
 * A project's events held in memory as columns: one typed array per field, strings replaced by dense
 * codes. Insights scan these arrays instead of reading rows from PostgreSQL; the copy is kept exact by
 * the columnar store, which appends what each transaction added and reloads after deletes.
 */

/** Strings to dense codes and back (event names, distinct ids, path items). */
export class Dictionary {
  private readonly codes = new Map<string, number>();
  readonly values: string[] = [];

  code(value: string): number {
    let code = this.codes.get(value);
    if (code === undefined) {
      code = this.values.length;
      this.codes.set(value, code);
      this.values.push(value);
    }
    return code;
  }

  find(value: string): number | undefined {
    return this.codes.get(value);
  }

  get size(): number {
    return this.values.length;
  }
}

type TypedArray = Float64Array | Int32Array | Uint32Array;

/** A typed array that doubles when full; `array` is only valid up to the owner's length. */
function grown<T extends TypedArray>(array: T, needed: number, make: (size: number) => T, fill?: number): T {
  if (needed <= array.length) return array;
  const bigger = make(Math.max(needed, array.length * 2, 1024));
  bigger.set(array);
  if (fill !== undefined) bigger.fill(fill, array.length);
  return bigger;
}

/** One event as the store reads it. */
export interface ColumnarEvent {
  /** ms since the epoch, with the microseconds PostgreSQL keeps as a fraction. */
  time: number;
  event: string;
  distinctId: string;
  /** The first 32 bits of the uuid: orders events of one actor at the same instant as `ORDER BY timestamp, uuid` does. */
  tie: number;
  /** A page view's URL without one trailing slash, a screen's name; null for other events. */
  item: string | null;
}

/** The copy's events in (distinct id, time, uuid) order, built by event-order.ts; the arrays may be longer than `length` (room to append). */
export interface OrderedEvents {
  length: number;
  time: Float64Array;
  event: Int32Array;
  distinct: Int32Array;
  tie: Uint32Array;
  item: Int32Array;
  /** distinct code d → its events are [distinctStart[d], distinctStart[d + 1]). */
  distinctStart: Int32Array;
}

export class EventColumns {
  length = 0;
  /**
   * Events [0, orderedLength) are ordered by (distinct id code, time, tie), those of code d in
   * [distinctStart[d], distinctStart[d + 1]) (codes past its end have none there); later events were
   * appended since and are in arrival order.
   */
  orderedLength = 0;
  distinctStart: Int32Array = new Int32Array(1);
  time: Float64Array = new Float64Array(0);
  event: Int32Array = new Int32Array(0);
  distinct: Int32Array = new Int32Array(0);
  tie: Uint32Array = new Uint32Array(0);
  /** Path item code, -1 for none. */
  item: Int32Array = new Int32Array(0);
  readonly eventNames = new Dictionary();
  readonly distinctIds = new Dictionary();
  readonly items = new Dictionary();
  /** distinct id code → dense person index, -1 when the distinct id has no person. */
  personOf = new Int32Array(0);
  /** Person ids (text, as the persons pages use them) and their dense indexes. */
  private readonly persons = new Dictionary();

  append(row: ColumnarEvent): void {
    const at = this.length;
    if (at === this.time.length) this.grow(at + 1);
    this.time[at] = row.time;
    this.event[at] = this.eventNames.code(row.event);
    this.distinct[at] = this.distinctCode(row.distinctId);
    this.tie[at] = row.tie;
    this.item[at] = row.item === null ? -1 : this.items.code(row.item);
    this.length = at + 1;
  }

  /** Who owns a distinct id now (a merge moves it); null: nobody. */
  setOwner(distinctId: string, personId: string | null): void {
    const code = this.distinctCode(distinctId);
    this.personOf[code] = personId === null ? -1 : this.personIndexFor(personId);
  }

  /** Takes the ordered events in place of the current ones; they must be the same events (see event-order.ts). */
  adoptOrder(ordered: OrderedEvents): void {
    if (ordered.length !== this.length) throw new Error(`ordered ${ordered.length} events of a copy that holds ${this.length}`);
    ({ time: this.time, event: this.event, distinct: this.distinct, tie: this.tie, item: this.item, distinctStart: this.distinctStart } = ordered);
    this.orderedLength = ordered.length;
  }

  get personCount(): number {
    return this.persons.size;
  }

  /** dense person index → person id. */
  get personIds(): readonly string[] {
    return this.persons.values;
  }

  private distinctCode(distinctId: string): number {
    const code = this.distinctIds.code(distinctId);
    if (code >= this.personOf.length) this.personOf = grown(this.personOf, code + 1, (n) => new Int32Array(n), -1);
    return code;
  }

  /** The dense index of a person id, given one if it has none yet. */
  personIndexFor(personId: string): number {
    return this.persons.code(personId);
  }

  private grow(needed: number): void {
    this.time = grown(this.time, needed, (n) => new Float64Array(n));
    this.event = grown(this.event, needed, (n) => new Int32Array(n));
    this.distinct = grown(this.distinct, needed, (n) => new Int32Array(n));
    this.tie = grown(this.tie, needed, (n) => new Uint32Array(n));
    this.item = grown(this.item, needed, (n) => new Int32Array(n));
  }
}

/**
 * The path item of an event from its page view URL or screen name (`raw`): a URL loses one trailing slash,
 * as PostgreSQL's `regexp_replace(url, '(.)/$', '\1')` does; other events have none.
 */
export function pathItemOf(event: string, raw: string | null): string | null {
  if (event === '$screen') return raw;
  if (event !== '$pageview' || raw === null) return null;
  return raw.length >= 2 && raw.endsWith('/') ? raw.slice(0, -1) : raw;
}

/** One person property of every person, as codes of a dictionary whose code 0 is PostHog's null marker. */
export class PersonColumn {
  /** dense person index → value code (missing: 0). */
  readonly codes: number[] = [];
  readonly dictionary = new Dictionary();

  constructor(nullMarker: string) {
    this.dictionary.code(nullMarker);
  }

  set(person: number, value: string | null): void {
    this.codes[person] = value === null ? 0 : this.dictionary.code(value);
  }

  codeOf(person: number): number {
    return person < 0 ? 0 : (this.codes[person] ?? 0);
  }
}

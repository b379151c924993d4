import fc from 'fast-check';
import { heldBytesIn, heldStringsIn, holdLongStrings, jsonWithHeldStrings, restoreHeldStrings, type HeldStrings } from '../../../src/common/json/held-strings';
import { chunkJobBySize, eventCount } from '../../../src/modules/ingestion/job-splitting';
import type { IngestionJobData } from '../../../src/modules/ingestion/ingestion.types';

const MIN = 16;
const long = (seed: string) => seed.repeat(Math.ceil(MIN / seed.length) + 1);
const utf8 = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');
/** What the job's JSON becomes on the job-encoding thread. */
const spliced = (value: unknown, held: HeldStrings) => utf8(jsonWithHeldStrings(value, held.nonce, heldStringsIn(value, held)));

describe('held strings', () => {
  it('holds long strings of an application property, and nothing capture reads or lifts by meaning', () => {
    const events = [
      { event: 'a', distinct_id: long('d'), properties: { blob: long('x'), short: 'x', $set: { bio: long('b') }, $current_url: long('u'), distinct_id: long('i'), token: long('t'), nested: { deep: long('n') }, n: 1 } },
      { event: 'b', properties: 'not an object' },
      'not an event',
    ];
    const held = holdLongStrings(events, MIN)!;
    expect(held.json.map(utf8)).toEqual([JSON.stringify(long('x'))]);
    expect(events[0]).toEqual({
      event: 'a',
      distinct_id: long('d'),
      properties: { blob: `hb-held:${held.nonce}:0`, short: 'x', $set: { bio: long('b') }, $current_url: long('u'), distinct_id: long('i'), token: long('t'), nested: { deep: long('n') }, n: 1 },
    });
    expect(held.nonce).toMatch(/^[0-9a-f]{32}$/);
  });

  it('holds nothing, and says so, when no property string is long enough', () => {
    expect(holdLongStrings([{ event: 'a', properties: { s: 'short' } }], MIN)).toBeNull();
  });

  it('cleans a held string as capture cleans every string (NUL and lone surrogates become U+FFFD)', () => {
    const events = [{ properties: { s: `${long('a')}\u0000\ud800b` } }];
    const held = holdLongStrings(events, MIN)!;
    expect(JSON.parse(utf8(held.json[0]))).toBe(`${long('a')}\ufffd\ufffdb`);
  });

  it('gives, spliced or restored, exactly the JSON the events had before their strings were held', () => {
    const text = fc.string({ unit: 'binary', minLength: 0, maxLength: 60 }).map((s) => s.replace(/\u0000/g, '').toWellFormed());
    const properties = fc.dictionary(fc.oneof(fc.constant('__proto__'), fc.constant('$set'), fc.constant('token'), text), fc.oneof(text, fc.integer(), fc.constant(null)), { maxKeys: 8 });
    fc.assert(
      fc.property(fc.array(fc.record({ event: text, properties }), { minLength: 1, maxLength: 5 }), (events) => {
        const before = JSON.stringify(events);
        const job = { segments: [{ events: structuredClone(events) }] };
        const held = holdLongStrings(job.segments[0].events, MIN);
        if (!held) return;
        // A string lifted by capture (a campaign property into $set_once) appears twice and is spliced twice.
        const lifted = Object.values(job.segments[0].events[0].properties).find((value): value is string => typeof value === 'string' && value.startsWith('hb-held:'));
        const withLift = { ...job, lifted };
        expect(spliced(withLift, held)).toBe(JSON.stringify({ segments: [{ events }], lifted: lifted && JSON.parse(utf8(held.json[Number(lifted.split(':')[2])])) }));
        restoreHeldStrings(job, held);
        expect(JSON.stringify(job.segments[0].events)).toBe(before);
      }),
      { numRuns: 500 },
    );
  });

  it('leaves a string that looks like a marker of another payload as it is', () => {
    const events = [{ properties: { blob: long('x'), mimic: 'hb-held:00000000000000000000000000000000:0' } }];
    const held = holdLongStrings(events, MIN)!;
    expect(JSON.parse(spliced(events, held))).toEqual([{ properties: { blob: long('x'), mimic: 'hb-held:00000000000000000000000000000000:0' } }]);
  });

  it('refuses to write a job whose marker has no bytes, or is not a whole string, rather than store the marker', () => {
    const events = [{ properties: { blob: long('x') } }];
    const held = holdLongStrings(events, MIN)!;
    expect(() => jsonWithHeldStrings(events, held.nonce, new Map())).toThrow('held string 0 is missing');
    const marker = events[0].properties.blob;
    expect(() => jsonWithHeldStrings([{ s: `${marker}1x` }], held.nonce, heldStringsIn(events, held))).toThrow('not a whole JSON string');
  });

  it('counts what held strings add to a job, so a large payload is still cut into jobs of about 1 MB', () => {
    const blob = 'x'.repeat(400_000);
    const events = Array.from({ length: 5 }, (_, i) => ({ uuid: `u${i}`, event: 'big', distinct_id: `d${i}`, properties: { blob }, timestamp: 't', elements_chain: '' }));
    const held = holdLongStrings(events, 64 * 1024)!;
    const job: IngestionJobData = { segments: [{ projectId: 1, token: 'phc', receivedAt: 't', events, warnings: [] }] };
    expect(heldBytesIn(job, held)).toBe(5 * 400_002);
    expect(chunkJobBySize(job, 1024 * 1024).length).toBe(1); // the markers alone are small
    expect(chunkJobBySize(job, 1024 * 1024, (piece) => heldBytesIn(piece, held)).map(eventCount)).toEqual([2, 2, 1]);
  });
});

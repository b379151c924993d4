import fc from 'fast-check';
import { sortActors } from '../../../src/modules/analytics/model/actor-page';
import { firstInActorOrderSql } from '../../../src/modules/analytics/sql/actors.sql';
import { scratchEngine } from './support/scratch-engine';

/**
 * A page of actors cut in the engine holds the actors `sortActors` would put first: persons by id as numbers (9 before
 * 10), groups by key in byte order (uppercase before lowercase; U+FFFF before an emoji, which
 * the order of UTF-16 code units would reverse).
 */
describe(firstInActorOrderSql.name, () => {
  const engine = scratchEngine('CREATE TABLE rows (actor String, line String) ENGINE = Memory');

  async function firstInEngine(actors: string[], groups: boolean, first: number): Promise<string[]> {
    await engine.load('rows', actors.map((actor) => ({ actor, line: '' })));
    const found = await engine.rows<{ actor: string }>((p) => firstInActorOrderSql('SELECT actor, line FROM rows', groups, first, p));
    return found.map((row) => row.actor);
  }

  const personIds = fc.array(fc.oneof(fc.integer({ min: 1, max: 120 }), fc.integer({ min: 1, max: 2 ** 53 - 1 })).map(String), { maxLength: 40 });
  const groupKeys = fc.array(fc.oneof(fc.constantFrom('a', 'B', 'b', 'ä', '\uffff', '😀', '10', '9', ''), fc.string({ unit: 'binary', maxLength: 4 })), { maxLength: 40 });

  it('puts persons first by id as a number', async () => {
    await fc.assert(
      fc.asyncProperty(personIds, fc.nat({ max: 45 }), async (ids, first) => {
        expect(await firstInEngine(ids, false, first)).toEqual(sortActors([...ids], null).slice(0, first));
      }),
      { numRuns: 60 },
    );
    expect(await firstInEngine(['10', '9', '100', '11'], false, 3)).toEqual(['9', '10', '11']);
  });

  it('puts groups first by key in byte order', async () => {
    await fc.assert(
      fc.asyncProperty(groupKeys, fc.nat({ max: 45 }), async (keys, first) => {
        expect(await firstInEngine(keys, true, first)).toEqual(sortActors([...keys], 0).slice(0, first));
      }),
      { numRuns: 60 },
    );
    expect(await firstInEngine(['b', '😀', 'B', '\uffff', 'a'], true, 5)).toEqual(['B', 'a', 'b', '\uffff', '😀']);
  });
});

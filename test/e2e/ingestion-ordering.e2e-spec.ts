import type { INestApplicationContext } from '@nestjs/common';
import { sendJson } from '../support/capture-client';
import { waitForQueuesIdle } from '../support/ingestion';
import { personByDistinctId, personsOf } from '../support/persons';
import { startExtraWorker, startTestApp, TestApp } from '../support/test-app';

/** Capture order survives several workers processing at once, and merges never lose updates. */
describe('Ingestion ordering with concurrent workers', () => {
  let t: TestApp;
  const workers: INestApplicationContext[] = [];

  beforeAll(async () => {
    // The API process has no workers; two worker contexts compete for the same partition queues.
    t = await startTestApp({ env: { ROLE: 'api', INGESTION_PARTITIONS: '4' } });
    workers.push(await startExtraWorker(t), await startExtraWorker(t));
  });
  afterAll(async () => {
    for (const worker of workers) await worker.close();
    await t.close();
  });

  it('applies every update of one distinct_id in the order it was captured', async () => {
    const users = Array.from({ length: 8 }, (_, i) => `ordered-${i}`);
    // Each user is one client sending 30 requests one after the other, all users at once.
    await Promise.all(
      users.map(async (user) => {
        for (let n = 1; n <= 30; n++) {
          const res = await sendJson(t, '/capture/', { api_key: t.keys.projectApiKey, event: 'step', distinct_id: user, properties: { $set: { n, [`seen_${n}`]: true } } });
          expect(res.status).toBe(200);
        }
      }),
    );
    await waitForQueuesIdle(t, 30_000);
    for (const user of users) {
      const person = await personByDistinctId(t, user);
      expect(person?.properties.n).toBe(30);
      expect(Object.keys(person?.properties ?? {}).filter((key) => key.startsWith('seen_'))).toHaveLength(30);
    }
  });

  it('never loses a property nor leaves a distinct_id on two persons when merges race with updates', async () => {
    const pairs = Array.from({ length: 20 }, (_, i) => ({ anon: `race-anon-${i}`, user: `race-user-${i}` }));
    await Promise.all(
      pairs.flatMap(({ anon, user }) => [
        (async () => {
          for (let n = 0; n < 5; n++) await sendJson(t, '/capture/', { api_key: t.keys.projectApiKey, event: 'a', distinct_id: anon, properties: { $set: { [`anon_${n}`]: n } } });
        })(),
        (async () => {
          for (let n = 0; n < 5; n++) await sendJson(t, '/capture/', { api_key: t.keys.projectApiKey, event: 'u', distinct_id: user, properties: { $set: { [`user_${n}`]: n } } });
        })(),
        sendJson(t, '/capture/', { api_key: t.keys.projectApiKey, event: '$identify', distinct_id: user, properties: { $anon_distinct_id: anon } }),
      ]),
    );
    await waitForQueuesIdle(t, 30_000);
    const persons = await personsOf(t);
    const owners = new Map<string, number>();
    for (const person of persons) for (const id of person.distinct_ids) owners.set(id, (owners.get(id) ?? 0) + 1);
    for (const [id, count] of owners) expect({ id, count }).toEqual({ id, count: 1 });
    for (const { anon, user } of pairs) {
      const person = await personByDistinctId(t, user);
      expect(person?.distinct_ids).toEqual([anon, user]);
      for (let n = 0; n < 5; n++) {
        expect(person?.properties[`anon_${n}`]).toBe(n);
        expect(person?.properties[`user_${n}`]).toBe(n);
      }
    }
  });
});

import type { ActorPage } from './insight-result';

/** Byte order of UTF-8 text, as PostgreSQL's `COLLATE "C"` sorts. */
export function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** Actors in PostHog's order for funnels, correlation and paths: persons by id, groups by key in byte order. */
export function sortActors(ids: string[], groupTypeIndex: number | null): string[] {
  return groupTypeIndex === null ? ids.sort((a, b) => Number(a) - Number(b)) : ids.sort(byteOrder);
}

/** One page of actors already in order; `full` tells a `next` link (PostHog's rule: the page was full). */
export function actorPage(ordered: string[], groupTypeIndex: number | null, page: { limit: number; offset: number }): ActorPage {
  const slice = ordered.slice(page.offset, page.offset + page.limit);
  return {
    actors: slice.map((id) => ({ id, value: null })),
    full: slice.length >= page.limit,
    kind: groupTypeIndex === null ? 'person' : 'group',
    groupTypeIndex,
  };
}

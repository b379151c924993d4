import type { Cached } from '../insight-cache';
import type { SerializedActor } from './actor.presenter';

/** What every computed insight reply carries: the project's zone and when (and whether from cache) it was computed. */
export function cachedEnvelope(project: { timezone: string }, result: Cached<unknown>) {
  return { timezone: project.timezone, last_refresh: result.lastRefresh.toISOString(), is_cached: result.isCached };
}

/**
 * PostHog's `format_paginated_url`: when the request already has `offset=`, the next page is the same
 * path and query without the leading slash with that offset replaced; otherwise the absolute URL with
 * `offset` appended. `limit` stays as the request gave it.
 */
export function paginatedUrl(url: URL, offset: number, limit: number): string {
  const next = offset + limit;
  const pathAndQuery = `${url.pathname}${url.search}`;
  if (new RegExp(`[?&]offset=`).test(url.search)) return pathAndQuery.slice(1).replace(`offset=${offset}`, `offset=${next}`);
  return `${url.toString()}${url.search ? '&' : '?'}offset=${next}`;
}

export interface ActorsReplyInput {
  people: SerializedActor[];
  /** Rows the page query returned, before persons deleted since were left out. */
  rawCount: number;
  full: boolean;
  url: URL;
  offset: number;
  limit: number;
}

/** The reply input of one computed page: its serialized actors, how many rows it had, and whether it was full. */
export function replyInput(answer: { page: { actors: unknown[]; full: boolean }; people: SerializedActor[] }, url: URL, selection: { offset: number; limit: number }): ActorsReplyInput {
  return { people: answer.people, rawCount: answer.page.actors.length, full: answer.page.full, url, offset: selection.offset, limit: selection.limit };
}

/** Trends, funnel, correlation and path persons: PostHog's cached-results envelope. */
export function actorsReply(input: ActorsReplyInput, lastRefresh: Date) {
  return {
    results: [{ people: input.people, count: input.people.length }],
    next: input.full ? paginatedUrl(input.url, input.offset, input.limit) : null,
    initial: input.url.toString(),
    missing_persons: input.rawCount - input.people.length,
    is_cached: false,
    last_refresh: lastRefresh.toISOString(),
  };
}

/** Stickiness and lifecycle persons: only the people and `next`. */
export function plainActorsReply(input: ActorsReplyInput) {
  return {
    results: [{ people: input.people, count: input.people.length }],
    next: input.full ? paginatedUrl(input.url, input.offset, input.limit) : null,
  };
}

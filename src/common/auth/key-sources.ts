import { isJsonObject } from '../json/json-object';

/** Where a personal API key was found; the phrase appears verbatim in PostHog's 401 detail. */
export type PersonalKeySource = 'Authorization header' | 'body' | 'query string';

export interface FoundPersonalKey {
  key: string;
  source: PersonalKeySource;
}

type Bag = Record<string, unknown> | undefined | null;

const BEARER = /^Bearer\s+(\S.*)$/i;

function nonEmptyString(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  return trimmed.length > 0 ? trimmed : null;
}

function asBag(value: unknown): Bag {
  return isJsonObject(value) ? value : null;
}

/** The token of an `Authorization: Bearer <token>` header; null without one. */
export function bearerToken(authorization: string | undefined): string | null {
  const header = nonEmptyString(authorization);
  const bearer = header ? BEARER.exec(header) : null;
  return bearer ? bearer[1].trim() : null;
}

/**
 * PostHog's order (posthog/auth.py): Authorization Bearer header, then body `personal_api_key`,
 * then query `personal_api_key`. Only the first candidate found is tried.
 */
export function findPersonalApiKey(authorization: string | undefined, body: unknown, query: unknown): FoundPersonalKey | null {
  const bearer = bearerToken(authorization);
  if (bearer) return { key: bearer, source: 'Authorization header' };
  const fromBody = nonEmptyString(asBag(body)?.personal_api_key);
  if (fromBody) return { key: fromBody, source: 'body' };
  const fromQuery = nonEmptyString(asBag(query)?.personal_api_key);
  if (fromQuery) return { key: fromQuery, source: 'query string' };
  return null;
}

/**
 * The project token of a public request: body `api_key`, `token`, `$token`, then
 * `properties.token`, then query `token` / `api_key`. For array and `{batch}` bodies the first
 * event that carries one decides.
 */
export function findProjectToken(body: unknown, query: unknown): string | null {
  const events = Array.isArray(body) ? body : null;
  const bag = asBag(body);
  const candidates: unknown[] = [];
  if (bag) {
    candidates.push(bag.api_key, bag.token, bag.$token, asBag(bag.properties)?.token);
    if (Array.isArray(bag.batch)) candidates.push(...tokensOfEvents(bag.batch));
  }
  if (events) candidates.push(...tokensOfEvents(events));
  const queryBag = asBag(query);
  candidates.push(queryBag?.token, queryBag?.api_key);
  for (const candidate of candidates) {
    const token = nonEmptyString(candidate);
    if (token) return token;
  }
  return null;
}

/**
 * What authentication reads of a body, and nothing else: the project token, a personal key and a project id, each where
 * the finders above would find it. For a payload decoded away from the request (a large capture payload, prepared by
 * the payload worker), it stands in for the body, so the guard finds exactly what it would have found in the whole.
 */
export function authenticationFields(body: unknown): Record<string, unknown> {
  const bag = asBag(body);
  const fields: Record<string, unknown> = {};
  const token = findProjectToken(body, null);
  if (token !== null) fields.api_key = token;
  if (bag && 'personal_api_key' in bag) fields.personal_api_key = bag.personal_api_key;
  if (bag && 'project_id' in bag) fields.project_id = bag.project_id;
  return fields;
}

function tokensOfEvents(events: unknown[]): unknown[] {
  const found: unknown[] = [];
  for (const event of events) {
    const bag = asBag(event);
    if (!bag) continue;
    found.push(bag.api_key, bag.token, bag.$token, asBag(bag.properties)?.token);
  }
  return found;
}

/** PostHog's token shape rules (rust/capture token.rs): the reason a token is refused, or null. */
export function projectTokenShapeProblem(token: string): 'too_long' | 'not_ascii' | null {
  if (token.length > 64) return 'too_long';
  // Printable ASCII only: emoji, NUL and control characters never appear in a real key.
  if (!/^[\x21-\x7e]+$/.test(token)) return 'not_ascii';
  return null;
}

/** The project id that accompanies a personal key on public endpoints: body, then query. */
export function findProjectIdParam(body: unknown, query: unknown): string | null {
  for (const raw of [asBag(body)?.project_id, asBag(query)?.project_id]) {
    if (typeof raw === 'number' && Number.isInteger(raw)) return String(raw);
    const text = nonEmptyString(raw);
    if (text) return text;
  }
  return null;
}

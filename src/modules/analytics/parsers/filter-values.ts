import { ApiError } from '../../../common/errors/api-error';
import { isJsonObject } from '../../../common/json/json-object';
import { parsePropertyFilters, PropertyFilterError, PropertyNode } from '../../../kernel/property-filters';
import { checkParameterNames } from './filter-parameters';

/**
 * Readers for one filter value, each refusing a bad one with a 400 that names the parameter. A value is
 * what a query string gives (text, JSON in text) or what a JSON body gives (any JSON value).
 */

export type FilterInput = Record<string, unknown>;

/**
 * A legacy route's filter: query string and JSON body as PostHog merges them (the body wins), with a parameter that
 * looks like a misspelt one refused (filter-parameters.ts).
 */
export function legacyFilterInput(query: FilterInput | undefined, body: unknown): FilterInput {
  const merged: FilterInput = {};
  for (const [key, value] of Object.entries(query ?? {})) merged[key] = Array.isArray(value) ? value[value.length - 1] : value;
  if (isJsonObject(body)) Object.assign(merged, body);
  checkParameterNames(merged);
  return merged;
}

export function present(input: FilterInput, key: string): boolean {
  return input[key] !== undefined && input[key] !== null && input[key] !== '';
}

/** A JSON-valued parameter: text is parsed, anything else is taken as already parsed. */
export function jsonValue(input: FilterInput, key: string): unknown {
  const raw = input[key];
  if (typeof raw !== 'string') return raw;
  try {
    return JSON.parse(raw);
  } catch {
    throw ApiError.validation(`${key} is not valid JSON: send a URL-encoded JSON value, e.g. ${key}=[{"id":"$pageview"}].`, key);
  }
}

export function textValue(input: FilterInput, key: string): string | null {
  const raw = input[key];
  if (raw === undefined || raw === null || raw === '') return null;
  if (typeof raw === 'string') return raw;
  if (typeof raw === 'number') return String(raw);
  throw ApiError.validation(`${key} must be text.`, key);
}

export function booleanValue(input: FilterInput, key: string): boolean {
  const raw = input[key];
  return raw === true || (typeof raw === 'string' && raw.toLowerCase() === 'true');
}

/** An integer within bounds, or the fallback when absent. */
export function integerValue(input: FilterInput, key: string, fallback: number, min: number, max: number): number {
  const raw = input[key];
  if (raw === undefined || raw === null || raw === '') return fallback;
  const value = typeof raw === 'number' ? raw : typeof raw === 'string' && /^-?\d{1,16}$/.test(raw.trim()) ? Number(raw) : Number.NaN;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw ApiError.validation(`${key} must be an integer from ${min} to ${max} (got ${JSON.stringify(raw)}).`, key);
  }
  return value;
}

/** One of a fixed list of words; `normalize` maps aliases and case first. */
export function enumValue<T extends string>(input: FilterInput, key: string, allowed: readonly T[], fallback: T, normalize = (v: string) => v): T {
  const raw = textValue(input, key);
  if (raw === null) return fallback;
  const value = normalize(raw);
  if (!(allowed as readonly string[]).includes(value)) throw ApiError.validation(`${key} "${raw}" is not supported: use one of ${allowed.join(', ')}.`, key);
  return value as T;
}

/** A property filter list or group, in text or as JSON; `attr` names it in errors. */
export function propertyFilterValue(raw: unknown, attr: string, defaultType = 'event'): PropertyNode | null {
  if (raw === undefined || raw === null || raw === '') return null;
  try {
    return parsePropertyFilters(typeof raw === 'string' ? raw : JSON.stringify(raw), defaultType);
  } catch (error) {
    if (error instanceof PropertyFilterError) throw ApiError.validation(`${attr}: ${error.detail}`, attr);
    throw error;
  }
}

/** Most names one list parameter may hold (excluded events, groupings, correlation names, …). */
const MAX_NAMES = 100;

/** A JSON list of texts (event names, path items, property names, breakdown values); absent means none. */
export function nameListValue(input: FilterInput, key: string, max = MAX_NAMES): string[] {
  if (!present(input, key)) return [];
  const list = jsonValue(input, key);
  if (!Array.isArray(list) || list.some((item) => typeof item !== 'string')) throw ApiError.validation(`${key} must be a JSON list of names, e.g. ["$pageview"].`, key);
  if (list.length > max) throw ApiError.validation(`${key} holds at most ${max} names (got ${list.length}).`, key);
  return list as string[];
}

import { ApiError } from '../../common/errors/api-error';
import { isJsonObject } from '../../common/json/json-object';
import { compiled } from '../../kernel/property-match';
import { parsePropertyFilters, PropertyFilterError } from '../../kernel/property-filters';

/** How a step's url, text or href is compared with the event's (PostHog's `*_matching`). */
export const STEP_MATCHING = ['contains', 'regex', 'exact'] as const;
export type StepMatching = (typeof STEP_MATCHING)[number];

/**
 * One step of an action, as PostHog's ActionStepJSON: an event matches the step when it has every condition the step
 * sets (its name, its page's URL, the clicked element's text, link, tag or CSS selector, its properties); an event
 * matches the action when it matches any step.
 */
export interface ActionStep {
  event: string | null;
  properties: unknown[] | null;
  selector: string | null;
  tag_name: string | null;
  text: string | null;
  text_matching: StepMatching | null;
  href: string | null;
  href_matching: StepMatching | null;
  url: string | null;
  url_matching: StepMatching | null;
}

/** What insights read of an action: its id, its name and its steps. */
export interface ActionDefinition {
  id: number;
  name: string;
  steps: ActionStep[];
}

const TEXT_FIELDS = ['event', 'selector', 'tag_name', 'text', 'href', 'url'] as const;
const MATCHING_FIELDS = ['text_matching', 'href_matching', 'url_matching'] as const;
const KNOWN_FIELDS = new Set<string>([...TEXT_FIELDS, ...MATCHING_FIELDS, 'properties', 'id', 'name', 'isNew', 'selector_regex']);
/** Steps one action may have, and the longest text a step field may hold. */
const MAX_STEPS = 50;
const MAX_TEXT = 65_535;

function textField(raw: Record<string, unknown>, field: string, attr: string): string | null {
  const value = raw[field];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw ApiError.validation(`${attr}.${field} must be text or null.`, 'steps');
  if (value.length > MAX_TEXT) throw ApiError.validation(`${attr}.${field} is longer than ${MAX_TEXT} characters.`, 'steps');
  return value;
}

function matchingField(raw: Record<string, unknown>, field: string, attr: string): StepMatching | null {
  const value = raw[field];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || !(STEP_MATCHING as readonly string[]).includes(value)) {
    throw ApiError.validation(`${attr}.${field} must be one of ${STEP_MATCHING.join(', ')} (got ${JSON.stringify(value)}).`, 'steps');
  }
  return value as StepMatching;
}

function propertiesField(raw: Record<string, unknown>, attr: string): unknown[] | null {
  const value = raw.properties;
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value)) throw ApiError.validation(`${attr}.properties must be a list of property filters.`, 'steps');
  try {
    parsePropertyFilters(JSON.stringify(value), 'event');
  } catch (error) {
    if (error instanceof PropertyFilterError) throw ApiError.validation(`${attr}.properties: ${error.detail}`, 'steps');
    throw error;
  }
  return value;
}

/** A step's regex is RE2 (as the engine's `match` is), checked when it is saved rather than matching nothing later. */
function checkPatterns(step: ActionStep, attr: string): void {
  for (const [value, matching, field] of [[step.url, step.url_matching, 'url'], [step.text, step.text_matching, 'text'], [step.href, step.href_matching, 'href']] as const) {
    if (value !== null && matching === 'regex' && compiled(value) === null) throw ApiError.validation(`${attr}.${field} is not a valid regular expression (RE2 syntax).`, 'steps');
  }
}

function parseStep(raw: unknown, index: number): ActionStep {
  const attr = `steps[${index}]`;
  if (!isJsonObject(raw)) throw ApiError.validation(`${attr} must be an object: {"event": "$pageview", "url": "/pricing", …}.`, 'steps');
  const unknown = Object.keys(raw).find((key) => !KNOWN_FIELDS.has(key));
  if (unknown !== undefined) throw ApiError.validation(`${attr} has an unknown field ${unknown}: a step takes ${[...TEXT_FIELDS, ...MATCHING_FIELDS, 'properties'].join(', ')}.`, 'steps');
  const step = {
    event: textField(raw, 'event', attr),
    properties: propertiesField(raw, attr),
    selector: textField(raw, 'selector', attr),
    tag_name: textField(raw, 'tag_name', attr),
    text: textField(raw, 'text', attr),
    text_matching: matchingField(raw, 'text_matching', attr),
    href: textField(raw, 'href', attr),
    href_matching: matchingField(raw, 'href_matching', attr),
    url: textField(raw, 'url', attr),
    url_matching: matchingField(raw, 'url_matching', attr),
  };
  checkPatterns(step, attr);
  return step;
}

/** The steps of a write, each checked and with every field present (null when unset). */
export function parseSteps(raw: unknown): ActionStep[] {
  if (!Array.isArray(raw)) throw ApiError.validation('steps must be a list of steps.', 'steps');
  if (raw.length > MAX_STEPS) throw ApiError.validation(`An action holds at most ${MAX_STEPS} steps (got ${raw.length}).`, 'steps');
  return raw.map(parseStep);
}

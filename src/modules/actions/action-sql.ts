import type { PropertyNode } from '../../kernel/property-filters';
import { CHAIN_HREF, CHAIN_TEXT, ChainDialect, elementFilterSql, elementLeaf } from '../../kernel/element-sql';
import type { StepMatching } from './action-steps';
import type { ActionMatcher } from './action-matcher';

/** The row's columns an action's steps read, as SQL of the engine the dialect writes for. */
export interface ActionColumns {
  event: string;
  /** The page's URL as text ('' without one). */
  currentUrl: string;
  elementsChain: string;
  /** Property filters (a step's `properties`) as a condition over the row. */
  filter: (node: PropertyNode) => string;
}

type Step = ActionMatcher['steps'][number];

/** A value compared as a step says: exactly (the default for text and href), containing it, or matching a pattern. */
function matchingSql(column: string, value: string, matching: StepMatching, ignoreCase: boolean, d: ChainDialect): string {
  if (matching === 'exact') return d.equals(column, value);
  if (matching === 'regex') return d.matches(column, value);
  return d.contains(column, value, ignoreCase);
}

/** What a step asks of the clicked element and its ancestors: PostHog reads these on `$autocapture` events only. */
function elementConditions(step: Step, chain: string, d: ChainDialect): string[] {
  const conditions: string[] = [];
  if (step.selector) conditions.push(elementFilterSql(elementLeaf('selector', step.selector), chain, d));
  if (step.tag_name) conditions.push(elementFilterSql(elementLeaf('tag_name', step.tag_name), chain, d));
  if (step.href) conditions.push(matchingSql(d.firstCapture(chain, CHAIN_HREF), step.href, step.href_matching ?? 'exact', true, d));
  const text = step.text;
  if (text) conditions.push(d.someCapture(chain, CHAIN_TEXT, (capture) => matchingSql(capture, text, step.text_matching ?? 'exact', true, d)));
  return conditions;
}

function stepSql(step: Step, columns: ActionColumns, d: ChainDialect): string {
  const conditions: string[] = [];
  if (step.event) conditions.push(d.equals(columns.event, step.event));
  if (step.event === '$autocapture') conditions.push(...elementConditions(step, columns.elementsChain, d));
  // The page's URL: contains (the default, case-sensitive as PostHog's LIKE), exact, or a pattern.
  if (step.url) conditions.push(matchingSql(columns.currentUrl, step.url, step.url_matching ?? 'contains', false, d));
  if (step.filters) conditions.push(columns.filter(step.filters));
  return conditions.length ? `(${conditions.join(' AND ')})` : d.always;
}

/**
 * An event matches an action when it matches any of its steps, and a step when it has everything the step sets, as
 * PostHog compiles actions (https://github.com/PostHog/posthog/blob/master/posthog/hogql/property.py, `action_to_expr`).
 * An action without steps matches every event, as there.
 */
export function actionSql(action: ActionMatcher, columns: ActionColumns, d: ChainDialect): string {
  return action.steps.length ? `(${action.steps.map((step) => stepSql(step, columns, d)).join(' OR ')})` : d.always;
}

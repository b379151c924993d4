import type { PropertyLeaf, PropertyNode } from '../../events/property-filters';
import type { ChParams } from '../engine/ch-sql';
import type { StepMatching } from '../../actions/action-steps';
import type { ActionMatcher } from '../model/action-matcher';
import { elementFilterSql } from './element-filter.ch';
import { bindText, chLiteral } from './sql-text.ch';

/** The row's columns an action's steps read. */
export interface ActionColumns {
  event: string;
  /** The page's URL as text ('' without one). */
  currentUrl: string;
  elementsChain: string;
  /** Property filters (a step's `properties`) as a condition over the row. */
  filter: (node: PropertyNode) => string;
}

/** The first link of the chain and every text in it, as PostHog reads them (`elements_chain_href`, `elements_chain_texts`). */
const HREF = chLiteral('(?::|")href="(.*?)"');
const TEXT = chLiteral('(?::|")text="(.*?)"');

/** A value compared as a step says: exactly (the default for text and href), containing it, or matching an RE2 pattern. */
function matchingSql(column: string, value: string, matching: StepMatching, insensitive: boolean, p: ChParams): string {
  const bound = bindText(p, value);
  if (matching === 'exact') return `${column} = ${bound}`;
  if (matching === 'regex') return `match(${column}, ${bound})`;
  return `${insensitive ? 'positionCaseInsensitive' : 'position'}(${column}, ${bound}) > 0`;
}

/** What a step asks of the clicked element and its ancestors: PostHog reads these on `$autocapture` events only. */
function elementConditions(step: ActionMatcher['steps'][number], chain: string, p: ChParams): string[] {
  const conditions: string[] = [];
  if (step.selector) conditions.push(elementFilterSql(elementLeaf('selector', step.selector), chain, p));
  if (step.tag_name) conditions.push(elementFilterSql(elementLeaf('tag_name', step.tag_name), chain, p));
  if (step.href) conditions.push(matchingSql(`extract(${chain}, ${HREF})`, step.href, step.href_matching ?? 'exact', true, p));
  if (step.text) conditions.push(`arrayExists((text) -> ${matchingSql('text', step.text, step.text_matching ?? 'exact', true, p)}, extractAll(${chain}, ${TEXT}))`);
  return conditions;
}

function elementLeaf(key: string, value: string): PropertyLeaf {
  return { kind: 'leaf', key, value, operator: 'exact', type: 'element', negation: false };
}

function stepSql(step: ActionMatcher['steps'][number], columns: ActionColumns, p: ChParams): string {
  const conditions: string[] = [];
  if (step.event) conditions.push(`${columns.event} = ${bindText(p, step.event)}`);
  if (step.event === '$autocapture') conditions.push(...elementConditions(step, columns.elementsChain, p));
  // The page's URL: contains (the default, case-sensitive as PostHog's LIKE), exact, or an RE2 pattern.
  if (step.url) conditions.push(matchingSql(columns.currentUrl, step.url, step.url_matching ?? 'contains', false, p));
  if (step.filters) conditions.push(columns.filter(step.filters));
  return conditions.length ? `(${conditions.join(' AND ')})` : '1';
}

/**
 * An event matches an action when it matches any of its steps, and a step when it has everything the step sets, as
 * PostHog compiles actions (https://github.com/PostHog/posthog/blob/master/posthog/hogql/property.py, `action_to_expr`).
 * An action without steps matches every event, as there.
 */
export function actionSql(action: ActionMatcher, columns: ActionColumns, p: ChParams): string {
  return action.steps.length ? `(${action.steps.map((step) => stepSql(step, columns, p)).join(' OR ')})` : '1';
}

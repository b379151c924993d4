import type { ActionDefinition, ActionStep } from './action-steps';
import { parsePropertyFilters, PropertyNode } from '../../kernel/property-filters';

/** An action as insights match it: its steps, each with its property filters parsed. */
export interface ActionMatcher {
  id: number;
  name: string;
  steps: Array<ActionStep & { filters: PropertyNode | null }>;
}

/** A stored action as a matcher; its steps were checked when saved, so a filter this service cannot read matches nothing. */
export function actionMatcher(definition: ActionDefinition): ActionMatcher {
  const steps = definition.steps.map((step) => ({
    ...step,
    filters: step.properties ? parsePropertyFilters(JSON.stringify(step.properties), 'event', { checked: false }) : null,
  }));
  return { id: definition.id, name: definition.name, steps };
}

/** The property filter trees an entity's action reads (the joins they need are the query's to add). */
export function actionFilterTrees(action: ActionMatcher | null | undefined): Array<PropertyNode | null> {
  return action ? action.steps.map((step) => step.filters) : [];
}

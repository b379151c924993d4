import { ApiError } from '../../common/errors/api-error';
import { isJsonObject } from '../../common/json/json-object';
import { parseId } from '../../common/validation/patterns';
import { FlagCondition, FlagFilters, PropertyFilter, servedFilters, variantsOf } from '../../kernel/flag-filters';
import { pythonRepr } from './python-repr';
import {
  DATE_OPERATORS,
  isPropertyOperator,
  MEMBERSHIP_OPERATORS,
  RELATIVE_DATE,
  STRING_VALUE_OPERATORS,
} from '../../kernel/property-operators';

/** Cohorts and flags a flag's conditions point at; their existence is checked against the database. */
export interface FilterReferences {
  cohortIds: number[];
  flagIds: number[];
}

/** PostHog's limit on list values in one property filter (API-24). */
export const MAX_PROPERTY_VALUES = 1000;
const MAX_GROUP_TYPE_INDEX = 4;

function invalid(detail: string, code = 'invalid_input'): ApiError {
  return ApiError.validation(detail, 'filters', code);
}

/**
 * PostHog's validation of `filters` (posthog/api/feature_flag.py), in its order, on the served form of `filters`.
 * Throws the first broken rule as a 400 with attr `filters`; returns what must exist.
 */
export function validateFlagFilters(stored: Record<string, unknown>): FilterReferences {
  const filters = servedFilters(stored);
  const conditions = checkStructure(filters);
  checkPropertyTypes(conditions, filters.aggregation_group_type_index ?? null);
  const variantKeys = checkVariants(filters);
  for (const condition of filters.groups) {
    if (condition.variant != null && !variantKeys.has(condition.variant)) {
      throw invalid('Filters are not valid (variant override does not exist)');
    }
  }
  checkPayloads(filters.payloads, variantKeys);
  const references: FilterReferences = { cohortIds: [], flagIds: [] };
  for (const condition of conditions) {
    for (const property of condition.properties ?? []) checkProperty(property, references);
  }
  return references;
}

/** The shape of filters and of every condition in it; returns all conditions (groups, super, holdout). */
function checkStructure(filters: FlagFilters): FlagCondition[] {
  if (!Array.isArray(filters.groups)) throw invalid('Filters are not valid (groups must be a list)');
  const index = filters.aggregation_group_type_index ?? null;
  if (index !== null && !(Number.isInteger(index) && index >= 0 && index <= MAX_GROUP_TYPE_INDEX)) {
    throw invalid(`Filters are not valid (aggregation_group_type_index must be an integer from 0 to ${MAX_GROUP_TYPE_INDEX})`);
  }
  for (const name of ['super_groups', 'holdout_groups'] as const) {
    if (filters[name] !== undefined && filters[name] !== null && !Array.isArray(filters[name])) {
      throw invalid(`Filters are not valid (${name} must be a list)`);
    }
  }
  const conditions = [...filters.groups, ...(filters.super_groups ?? []), ...(filters.holdout_groups ?? [])];
  conditions.forEach(checkConditionShape);
  return conditions;
}

function checkConditionShape(condition: FlagCondition): void {
  if (!isJsonObject(condition)) throw invalid('Filters are not valid (each condition set must be an object)');
  if (condition.properties !== undefined && condition.properties !== null && !Array.isArray(condition.properties)) {
    throw invalid('Filters are not valid (properties must be a list)');
  }
  for (const property of condition.properties ?? []) {
    if (!isJsonObject(property) || typeof property.key !== 'string' || property.key === '') {
      throw invalid('Filters are not valid (every property filter needs a key)');
    }
  }
  checkPercentage(condition.rollout_percentage, 'Invalid rollout percentage: must be a number from 0 to 100.');
}

function checkPercentage(value: unknown, message: string): void {
  if (value === null || value === undefined) return;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 100) throw invalid(message);
}

/** Person flags take person, cohort and flag properties; group flags only their own group type's. */
function checkPropertyTypes(conditions: FlagCondition[], aggregation: number | null): void {
  const properties = conditions.flatMap((condition) => condition.properties ?? []);
  const typeOf = (p: PropertyFilter) => p.type ?? 'event';
  if (aggregation === null) {
    if (!properties.every((p) => ['person', 'cohort', 'flag'].includes(typeOf(p)))) {
      throw invalid('Filters are not valid (can only use person, cohort, and flag properties)');
    }
  } else if (!properties.every((p) => typeOf(p) === 'group' && p.group_type_index === aggregation)) {
    throw invalid('Filters are not valid (can only use group properties)');
  }
}

/** Variant keys; each variant rolls out 0–100 % and together they make exactly 100 %. */
function checkVariants(filters: FlagFilters): Set<string> {
  const multivariate = filters.multivariate;
  if (multivariate !== undefined && multivariate !== null && !isJsonObject(multivariate)) {
    throw invalid('Filters are not valid (multivariate must be an object)');
  }
  if (isJsonObject(multivariate) && multivariate.variants !== undefined && !Array.isArray(multivariate.variants)) {
    throw invalid('Filters are not valid (variants must be a list)');
  }
  const variants = variantsOf(filters);
  const keys = new Set<string>();
  for (const variant of variants) {
    if (!isJsonObject(variant) || typeof variant.key !== 'string' || variant.key === '') {
      throw invalid('Invalid variant definitions: every variant needs a key.');
    }
    if (keys.has(variant.key)) throw invalid('Invalid variant definitions: variant keys must be unique.');
    keys.add(variant.key);
    if (typeof variant.rollout_percentage !== 'number') throw invalid('Invalid variant definitions: every variant needs a rollout_percentage.');
    checkPercentage(variant.rollout_percentage, 'Invalid variant definitions: rollout percentages must be from 0 to 100.');
  }
  const sum = variants.reduce((total, variant) => total + variant.rollout_percentage, 0);
  if (variants.length > 0 && sum !== 100) {
    throw invalid('Invalid variant definitions: Variant rollout percentages must sum to 100.');
  }
  return keys;
}

function checkPayloads(payloads: unknown, variantKeys: Set<string>): void {
  if (payloads === undefined) return;
  if (!isJsonObject(payloads)) throw invalid('Payloads must be passed as a dictionary');
  for (const value of Object.values(payloads)) {
    if (typeof value === 'string' && !parsesAsJson(value)) throw invalid('Payload value is not valid JSON');
  }
  const keys = Object.keys(payloads);
  if (variantKeys.size > 0) {
    if (!keys.every((key) => variantKeys.has(key))) throw invalid('Payload keys must match a variant key for multivariate flags');
  } else if (!keys.every((key) => key === 'true')) {
    throw invalid("Payload keys must be 'true' for boolean flags");
  }
}

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function checkProperty(property: PropertyFilter, references: FilterReferences): void {
  const operator = property.operator ?? 'exact';
  if (!isPropertyOperator(operator)) throw invalid(`Invalid operator: ${pythonRepr(operator)}`, 'invalid_operator');
  if (property.type === 'cohort') return collectCohort(property, references);
  if (property.type === 'flag') return collectFlag(property, operator, references);
  if (MEMBERSHIP_OPERATORS.has(operator)) {
    throw invalid(`Operator ${operator} is only valid for cohort properties.`, 'invalid_operator');
  }
  if (operator === 'flag_evaluates_to') throw invalid('Operator flag_evaluates_to is only valid for flag properties.', 'invalid_operator');
  checkValue(property, operator);
}

function checkValue(property: PropertyFilter, operator: string): void {
  const { value } = property;
  if (Array.isArray(value) && value.length > MAX_PROPERTY_VALUES) {
    throw invalid(`Property group expressions of type ${property.key} cannot contain more than ${MAX_PROPERTY_VALUES} values.`);
  }
  if (STRING_VALUE_OPERATORS.has(operator) && typeof value !== 'string') {
    const example = typeof value === 'number' || typeof value === 'boolean' ? `, e.g. ${JSON.stringify(String(value))}` : '';
    throw invalid(`Invalid value for operator ${operator}: ${pythonRepr(value)}. This operator takes one value: send it as a string${example}.`, 'invalid_value');
  }
  if (DATE_OPERATORS.has(operator) && !isDateValue(value)) {
    throw invalid(`Invalid date value: ${pythonRepr(value)}`, 'invalid_date');
  }
}

function isDateValue(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  return RELATIVE_DATE.test(value) || !Number.isNaN(Date.parse(value));
}

function collectCohort(property: PropertyFilter, references: FilterReferences): void {
  const id = parseId(property.value);
  if (id === null) throw invalid(`Cohort with id ${pythonRepr(property.value)} does not exist`, 'cohort_does_not_exist');
  references.cohortIds.push(id);
}

/** Flag dependencies name the other flag by id and compare with `flag_evaluates_to`. */
function collectFlag(property: PropertyFilter, operator: string, references: FilterReferences): void {
  const id = parseId(property.key);
  if (id === null) throw invalid(`Flag dependency key must be a flag id, got ${pythonRepr(property.key)}`);
  if (operator !== 'flag_evaluates_to') throw invalid(`Flag dependencies must use the operator flag_evaluates_to, not ${operator}.`, 'invalid_operator');
  const { value } = property;
  if (typeof value !== 'boolean' && typeof value !== 'string') {
    throw invalid(`Invalid value for operator flag_evaluates_to: ${pythonRepr(value)}`, 'invalid_value');
  }
  references.flagIds.push(id);
}

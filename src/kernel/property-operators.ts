/** Every operator a flag condition may use: those PostHog's flags service evaluates (rust/feature-flags, property_matching.rs). */
export const PROPERTY_OPERATORS = [
  'exact', 'is_not', 'is_set', 'is_not_set', 'icontains', 'not_icontains', 'regex', 'not_regex',
  'gt', 'gte', 'lt', 'lte', 'is_date_exact', 'is_date_before', 'is_date_after',
  'semver_eq', 'semver_neq', 'semver_gt', 'semver_gte', 'semver_lt', 'semver_lte',
  'semver_tilde', 'semver_caret', 'semver_wildcard',
  'starts_with', 'ends_with', 'not_starts_with', 'not_ends_with', 'icontains_multi', 'not_icontains_multi',
  'in', 'not_in', 'flag_evaluates_to',
] as const;

export type PropertyOperator = (typeof PROPERTY_OPERATORS)[number];

const KNOWN = new Set<string>(PROPERTY_OPERATORS);

export function isPropertyOperator(value: unknown): value is PropertyOperator {
  return typeof value === 'string' && KNOWN.has(value);
}

/** Operators PostHog only accepts with a string value (API-24 `validate_filters`). */
export const STRING_VALUE_OPERATORS = new Set<string>(['regex', 'icontains', 'not_regex', 'not_icontains', 'gte', 'lte', 'gt', 'lt']);

export const DATE_OPERATORS = new Set<string>(['is_date_exact', 'is_date_before', 'is_date_after']);

/** Cohort membership operators; meaningless on other property types. */
export const MEMBERSHIP_OPERATORS = new Set<string>(['in', 'not_in']);

/** `-30d`, `1w`, `12h`, … : "now minus N units" (N < 10000). */
export const RELATIVE_DATE = /^-?(\d{1,4})([hdwmy])$/;

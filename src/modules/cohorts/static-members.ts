import { ApiError } from '../../common/errors/api-error';
import { UUID_PATTERN } from '../../common/validation/patterns';

/** PostHog's DEFAULT_COHORT_INSERT_BATCH_SIZE: the most persons one add request may name. */
export const MAX_PERSONS_PER_ADD = 1000;
/** The most ids a create or update may carry in `person_ids` / `distinct_ids`. */
export const MAX_MEMBER_IDS = 10_000;

/** Strings that are not uuids cannot name a person: they are ignored like unknown uuids. */
export function personUuids(values: string[]): string[] {
  return [...new Set(values.filter((value) => UUID_PATTERN.test(value)).map((value) => value.toLowerCase()))];
}

export function checkMemberIdCount(attr: 'person_ids' | 'distinct_ids', values: string[] | undefined): void {
  if (values !== undefined && values.length > MAX_MEMBER_IDS) {
    throw ApiError.validation(`Ensure this field has no more than ${MAX_MEMBER_IDS} elements.`, attr, 'max_length');
  }
}

/** The body of `add_persons_to_static_cohort`, checked as PostHog does, in its order and words. */
export function parseAddPersons(personIds: unknown): string[] {
  if (!Array.isArray(personIds)) throw ApiError.validation('person_ids must be a list');
  if (personIds.length === 0) throw ApiError.validation('person_ids cannot be empty');
  if (personIds.length > MAX_PERSONS_PER_ADD) throw ApiError.validation('List size exceeds limit');
  return personUuids(personIds.filter((id): id is string => typeof id === 'string'));
}

/** The body of `remove_person_from_static_cohort`. */
export function parseRemovePerson(personId: unknown): string {
  if (isFalsyInPython(personId)) throw ApiError.validation('person_id is required');
  if (typeof personId !== 'string') throw ApiError.validation('person_id must be a string');
  if (!UUID_PATTERN.test(personId)) throw ApiError.validation('person_id must be a valid UUID');
  return personId.toLowerCase();
}

/** PostHog tests `if not person_id`: empty lists and objects count as missing too. */
function isFalsyInPython(value: unknown): boolean {
  if (Array.isArray(value)) return value.length === 0;
  if (value !== null && typeof value === 'object') return Object.keys(value).length === 0;
  return !value;
}

/** The write-only fields of create and update, which only static cohorts take. */
export function checkMemberFields(dto: { query?: unknown; person_ids?: string[]; distinct_ids?: string[] }, isStatic: boolean): void {
  if (dto.query !== undefined && dto.query !== null) throw ApiError.validation('Query-based cohorts are not supported.', 'query');
  for (const attr of ['person_ids', 'distinct_ids'] as const) {
    if (dto[attr] !== undefined && !isStatic) throw ApiError.validation(`${attr} can only be given for static cohorts.`, attr);
    checkMemberIdCount(attr, dto[attr]);
  }
}

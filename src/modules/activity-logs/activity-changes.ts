import { isDeepStrictEqual } from 'node:util';

/** One changed field in an activity entry (PostHog `activity_log.py` `Change`). */
export interface ActivityChange {
  type: string;
  action: 'created' | 'deleted' | 'changed';
  field: string;
  before: unknown;
  after: unknown;
}

function actionFor(before: unknown, after: unknown): ActivityChange['action'] {
  if (before === null || before === undefined) return 'created';
  if (after === null || after === undefined) return 'deleted';
  return 'changed';
}

/** Field-by-field differences, in the order given (the model's field order in PostHog). */
export function changesBetween(
  type: string,
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  fields: readonly string[],
): ActivityChange[] {
  const changes: ActivityChange[] = [];
  for (const field of fields) {
    const was = before[field] ?? null;
    const now = after[field] ?? null;
    if (isDeepStrictEqual(was, now)) continue;
    changes.push({ type, action: actionFor(was, now), field, before: was, after: now });
  }
  return changes;
}

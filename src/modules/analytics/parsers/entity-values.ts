import { ApiError } from '../../../common/errors/api-error';
import type { ActionMatcher } from '../../actions/action-matcher';

/** The project's live actions by id, as parsing resolves `actions` entities against them. */
export type ProjectActions = ReadonlyMap<number, ActionMatcher>;

/** The action an entity's `id` names (`attr` in errors): a live action of this project, or a 400. */
export function actionNamed(id: unknown, actions: ProjectActions, attr: string): ActionMatcher {
  const number = typeof id === 'number' || (typeof id === 'string' && /^\d{1,10}$/.test(id)) ? Number(id) : Number.NaN;
  const action = actions.get(number);
  if (!action) throw ApiError.validation(`Action ${JSON.stringify(id)} does not exist in this project (or was deleted): the id of an action from /api/projects/:id/actions/.`, attr);
  return action;
}

/** An entity's type: `events` (an event name) or `actions` (an action id); `fallback` when it names none. */
export function entityType(raw: Record<string, unknown>, fallback: 'events' | 'actions', attr: string): 'events' | 'actions' {
  const type = raw.type ?? fallback;
  if (type !== 'events' && type !== 'actions') throw ApiError.validation(`${attr} type "${String(type)}" is not supported: use events or actions.`, attr);
  return type;
}

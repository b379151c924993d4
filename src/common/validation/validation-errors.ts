import type { ValidationError } from 'class-validator';
import { ApiError } from '../errors/api-error';

interface DrfMessage {
  code: string;
  detail: (error: ValidationError, constraint: string) => string;
}

const REQUIRED: DrfMessage = { code: 'required', detail: () => 'This field is required.' };

/** class-validator constraint names → the code and message DRF would have produced. */
const DRF_MESSAGES: Record<string, DrfMessage> = {
  isDefined: REQUIRED,
  isNotEmpty: { code: 'blank', detail: () => 'This field may not be blank.' },
  isString: { code: 'invalid_input', detail: () => 'Not a valid string.' },
  isInt: { code: 'invalid_input', detail: () => 'A valid integer is required.' },
  isNumber: { code: 'invalid_input', detail: () => 'A valid number is required.' },
  isBoolean: { code: 'invalid_input', detail: () => 'Must be a valid boolean.' },
  isEmail: { code: 'invalid_input', detail: () => 'Enter a valid email address.' },
  isUuid: { code: 'invalid_input', detail: () => 'Must be a valid UUID.' },
  isObject: { code: 'invalid_input', detail: () => 'Expected a dictionary of items.' },
  isArray: { code: 'not_a_list', detail: (e) => `Expected a list of items but got type "${pythonTypeName(e.value)}".` },
  isIn: { code: 'invalid_choice', detail: (e) => `"${String(e.value)}" is not a valid choice.` },
  isEnum: { code: 'invalid_choice', detail: (e) => `"${String(e.value)}" is not a valid choice.` },
  maxLength: {
    code: 'max_length',
    detail: (e, c) => `Ensure this field has no more than ${numberIn(e.constraints?.[c])} characters.`,
  },
  min: {
    code: 'min_value',
    detail: (e, c) => `Ensure this value is greater than or equal to ${numberIn(e.constraints?.[c])}.`,
  },
  max: {
    code: 'max_value',
    detail: (e, c) => `Ensure this value is less than or equal to ${numberIn(e.constraints?.[c])}.`,
  },
};

/** A JSON value's type as DRF names it (Python's type names). */
function pythonTypeName(value: unknown): string {
  if (value === null) return 'NoneType';
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'object') return 'dict';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  return typeof value === 'boolean' ? 'bool' : 'str';
}

function numberIn(message = ''): string {
  return /(-?\d+(\.\d+)?)/.exec(message)?.[1] ?? '';
}

/** Depth-first: the first failing leaf and its path joined with `__`, as drf-exceptions-hog does. */
function firstLeaf(errors: ValidationError[], prefix: string[] = []): { error: ValidationError; path: string[] } | null {
  for (const error of errors) {
    const path = [...prefix, error.property];
    if (error.constraints && Object.keys(error.constraints).length > 0) return { error, path };
    const nested = firstLeaf(error.children ?? [], path);
    if (nested) return nested;
  }
  return null;
}

/** Type errors explain more than range errors, so they win when a value breaks several rules. */
const PRIORITY = ['isDefined', 'isString', 'isInt', 'isNumber', 'isBoolean', 'isObject', 'isArray', 'isUuid', 'isEmail', 'isIn', 'isEnum', 'isNotEmpty'];

function pickConstraint(error: ValidationError): string {
  const names = Object.keys(error.constraints ?? {});
  return PRIORITY.find((name) => names.includes(name)) ?? names[0];
}

/**
 * A body that is not a JSON object, answered as a DRF serializer answers it before it looks at any field:
 * `null` is "No data provided", anything else "Invalid data. Expected a dictionary, but got list." with
 * the Python type name.
 */
export function bodyNotAnObject(value: unknown): ApiError {
  if (value === null) return ApiError.validation('No data provided', null, 'null');
  return ApiError.validation(`Invalid data. Expected a dictionary, but got ${pythonTypeName(value)}.`);
}

/** Used as the global ValidationPipe's exceptionFactory. */
export function validationErrorsToApiError(errors: ValidationError[]): ApiError {
  const leaf = firstLeaf(errors);
  if (!leaf) return ApiError.validation('Invalid input.');
  const attr = leaf.path.join('__');
  // IsOptional skips absent values, so any failure on one means the field is required.
  if (leaf.error.value === undefined) return ApiError.validation('This field is required.', attr, 'required');
  if (leaf.error.value === null) return ApiError.validation('This field may not be null.', attr, 'null');
  const chosen = pickConstraint(leaf.error);
  const mapping = DRF_MESSAGES[chosen];
  if (!mapping) return ApiError.validation(leaf.error.constraints?.[chosen] ?? 'Invalid input.', attr);
  return ApiError.validation(mapping.detail(leaf.error, chosen), attr, mapping.code);
}
